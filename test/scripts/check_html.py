#!/usr/bin/env python3
"""Renders an HTML report in headless Chromium and checks it.

    check_html.py REPORT.html [--screenshot OUT.png] [--chart ID ...]

The DOM, after the page's script ran, must hold each chart (by id) with
something drawn in it, and must fetch nothing; the screenshot must not be
blank (many colours, much of it not white).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from PIL import Image

CHARTS = ["summary", "timeline", "timeline-axis", "critical-path", "mesh-busy",
          "mesh-crossbars", "layers", "energy", "core-time", "stages"]


def chromium(args, profile):
    command = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--user-data-dir=" + profile] + args
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("html")
    parser.add_argument("--screenshot")
    parser.add_argument("--chart", action="append", default=[])
    args = parser.parse_args()
    url = "file://" + os.path.abspath(args.html)
    with open(args.html, encoding="utf-8") as f:
        source = f.read()
    for fetched in re.findall(r'(?:src|href)="([^"#][^"]*)"', source):
        sys.exit(f"check_html: the page fetches '{fetched}'")
    with tempfile.TemporaryDirectory() as profile:
        dom = chromium(["--dump-dom", url], profile)
        if dom.returncode != 0 or "<svg" not in dom.stdout:
            sys.exit("check_html: chromium did not render the page:\n" + dom.stderr[-2000:])
        for chart in CHARTS + args.chart:
            match = re.search(r'<(\w+)[^>]* id="%s"[^>]*>(.*?)</\1>' % re.escape(chart),
                              dom.stdout, re.S)
            if not match:
                sys.exit(f"check_html: no element with id '{chart}'")
            if not re.search(r"<(rect|line|text|tr)\b", match.group(2)):
                sys.exit(f"check_html: '{chart}' is empty")
        # The script drew the time axis.
        axis = re.search(r'id="timeline-axis"[^>]*>(.*?)</svg>', dom.stdout, re.S)
        if not axis or "<text" not in axis.group(1):
            sys.exit("check_html: the timeline's axis was not drawn")
        png = args.screenshot or os.path.join(profile, "shot.png")
        shot = chromium(["--window-size=1400,2400", "--screenshot=" + png, url], profile)
        if shot.returncode != 0 or not os.path.exists(png):
            sys.exit("check_html: no screenshot:\n" + shot.stderr[-2000:])
        image = Image.open(png).convert("RGB")
        pixels = list(image.getdata())
        colours = len(set(pixels))
        drawn = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
        if colours < 20 or drawn < 0.05:
            sys.exit(f"check_html: the screenshot looks blank ({colours} colours, "
                     f"{drawn:.1%} not white)")
    print(f"{len(CHARTS) + len(args.chart)} charts drawn; screenshot: {colours} colours, "
          f"{drawn:.0%} not white")


if __name__ == "__main__":
    main()
