"""Runs a command and fails unless it exits with the given status.

    exit_status.py STATUS COMMAND [ARG ...]

Its output goes through, so a FileCheck can read it after the status check.
"""
import subprocess
import sys

expected = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
if status != expected:
    sys.stderr.write(f"exit_status.py: {sys.argv[2:]} exited with {status}, expected {expected}\n")
    sys.exit(1)
