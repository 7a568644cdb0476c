#!/usr/bin/env bash
# Set up chronolog in ./.venv and run the main example with the embedded engine.
set -euo pipefail
cd "$(dirname "$0")"
EXTRAS=""
source scripts/ensure-venv.sh
echo "== chronolog run examples/ownership.vada"
.venv/bin/chronolog run examples/ownership.vada
