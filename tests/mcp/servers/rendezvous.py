"""Start the demo server only once a partner process has started too (proves parallel starts).

Usage: python rendezvous.py MY_FILE PARTNER_FILE — exits 1 if the partner never shows up.
"""

from __future__ import annotations

import os
import pathlib
import sys
import time

mine, partner = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
mine.write_text(str(os.getpid()))
deadline = time.monotonic() + 20
while not partner.exists():
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.05)
demo = pathlib.Path(__file__).with_name("demo_server.py")
os.execv(sys.executable, [sys.executable, str(demo)])
