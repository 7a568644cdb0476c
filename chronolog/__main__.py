from chronolog.cli import main

main()
