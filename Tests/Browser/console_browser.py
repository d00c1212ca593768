#!/usr/bin/env python3
"""Drives campaignd's web console in a real browser (Debian's Chromium, headless, through Selenium and chromedriver).

Run by Tests/CampaignConsoleTests/ConsoleBrowserTests.swift against a campaignd and two edges it started; prints one
line per check and exits non-zero at the first that fails. The screenshots it takes go to --out.
"""
import argparse
import json
import os
import struct
import sys
import time
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


DRIVER = None


def fail(message):
    print(f"FAIL {message}", flush=True)
    if DRIVER is not None:
        try:
            text = DRIVER.find_element(By.TAG_NAME, "body").text
            print(f"     at {DRIVER.current_url}: {text[:600]}", flush=True)
        except Exception as error:  # the page itself may be what failed
            print(f"     at {DRIVER.current_url}: ({error})", flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"ok   {message}", flush=True)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except Exception:  # an element not there yet
            pass
        time.sleep(0.05)
    fail(f"timed out after {timeout} s waiting for {what}")


def edge_seqs(driver):
    """The seq each row of the edges page shows, read in one script call: the page replaces its rows as updates come,
    so elements found one call and read in the next can be gone by then."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#edges tbody tr[data-edge]'), row => Number(row.dataset.seq))")


def decode_png(data):
    """The pixels of an 8-bit RGB or RGBA PNG (what Chromium writes) as (width, height, rows of bytes, channels)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    offset, idat, width, height, channels = 8, b"", 0, 0, 0
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                fail(f"unexpected PNG format depth {depth} colour {color}")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, position = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[position], bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    return width, height, rows, channels


def color_box(png, color, tolerance=12):
    """The bounding box (left, top, right, bottom) of the pixels within `tolerance` of `color`, and their count."""
    width, height, rows, channels = decode_png(png)
    left, top, right, bottom, count = width, height, -1, -1, 0
    for y, row in enumerate(rows):
        for x in range(0, width, 2):  # every other column is plenty for a box
            i = x * channels
            if all(abs(row[i + k] - color[k]) <= tolerance for k in range(3)):
                count += 1
                left, right, top, bottom = min(left, x), max(right, x), min(top, y), max(bottom, y)
    return (left, top, right + 1, bottom + 1), count, rows, channels


def dark_pixels(rows, channels, box):
    left, top, right, bottom = box
    dark = 0
    for y in range(top, bottom):
        row = rows[y]
        for x in range(left, right):
            i = x * channels
            if row[i] < 90 and row[i + 1] < 90 and row[i + 2] < 90:
                dark += 1
    return dark


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--console", required=True, help="host:port")
    parser.add_argument("--user", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--campaign", type=int, required=True)
    parser.add_argument("--hostile", type=int, required=True, help="a campaign whose name, advertiser and payer hold scripts")
    parser.add_argument("--variants", required=True, help="JSON: [{sha256, width, height, color: [r, g, b]}]")
    parser.add_argument("--edges", type=int, required=True)
    parser.add_argument("--screen", required=True, help="the preview's query for one screen: screen=390x844@3&safeTop=47&safeBottom=34")
    parser.add_argument("--frames", required=True, help="JSON: {sha256: {frame: [x, y, w, h]}}, AdLayout's frames on that screen, in points")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    base = f"http://{args.console}"
    variants = json.loads(args.variants)
    expected_frames = json.loads(args.frames)

    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1100",
                 "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.set_page_load_timeout(20)
    global DRIVER
    DRIVER = driver
    try:
        # A page without a session goes to the sign-in form; a wrong token is told so.
        driver.get(base + "/")
        check(driver.current_url.endswith("/signin"), "a page without a session leads to the sign-in form")
        driver.find_element(By.NAME, "user").send_keys(args.user)
        driver.find_element(By.NAME, "token").send_keys("not-the-token-of-anyone")
        driver.find_element(By.CSS_SELECTOR, "#signin button").click()
        wait_for(lambda: "not a console user" in driver.find_element(By.CSS_SELECTOR, ".error").text, 10, "the wrong-token message")
        check(True, "a wrong token is refused on the page")
        driver.find_element(By.NAME, "user").send_keys(args.user)
        driver.find_element(By.NAME, "token").send_keys(args.token)
        driver.find_element(By.CSS_SELECTOR, "#signin button").click()
        wait_for(lambda: "signed in as" in driver.find_element(By.CSS_SELECTOR, ".who").text, 10, "the campaigns page")
        check(driver.find_elements(By.CSS_SELECTOR, "svg.timeline"), "the campaigns page draws the timeline")
        check(driver.execute_script("return document.cookie") == "", "the session cookie is out of the page's scripts' reach (HttpOnly)")

        # A script in a campaign's name shows as text and never runs.
        for path in ("/", f"/campaigns/{args.hostile}"):
            driver.get(base + path)
            owned = driver.execute_script("return window.owned === undefined ? null : window.owned")
            check(owned is None, f"{path}: the script in a campaign name did not run")
        check("<script>" in driver.find_element(By.TAG_NAME, "h2").text, "the hostile name is shown as text")
        # So does markup in its advertiser and payer, shown as text in its fields.
        fields = {row.find_element(By.TAG_NAME, "th").text: row.find_element(By.TAG_NAME, "td").text
                  for row in driver.find_elements(By.CSS_SELECTOR, "#fields tr")}
        check("<img" in fields.get("advertiser", "") and "<script>" in fields.get("paid by", ""),
              f"the hostile advertiser and payer are shown as text: {fields}")
        check(driver.find_elements(By.CSS_SELECTOR, "#reports tr[data-reason=total]"), "the campaign page shows its reports")

        # The phone preview: each variant on common iPhones, the countdown running, skip at skipAfter, the jump.
        driver.get(base + f"/campaigns/{args.campaign}")
        phones = driver.find_elements(By.CSS_SELECTOR, "figure.preview")
        check(len(phones) == len(variants), f"one figure per variant ({len(variants)})")
        samples = []
        start = time.monotonic()
        first = driver.find_element(By.CSS_SELECTOR, "svg.phone")
        while time.monotonic() - start < 6.5:
            # Both read in one script, so that no tick falls between them.
            text, skip = driver.execute_script(
                "var phone = arguments[0]; return [phone.querySelector('.countdown-text').textContent,"
                " phone.querySelector('.skip').getAttribute('visibility')]", first)
            samples.append((text, skip))
            time.sleep(0.1)
        shown = [text for text, _ in samples]
        check({"5s", "4s", "3s", "2s", "1s"} <= set(shown), f"the countdown runs 5s to 1s (saw {sorted(set(shown))})")
        check(all(skip == "hidden" for text, skip in samples if text in ("5s", "4s")), "no skip button in the first 2 s")
        check(all(skip == "visible" for text, skip in samples if text in ("3s", "2s", "1s")), "the skip button from 2 s on")
        for figure, variant in zip(phones, variants):
            check(figure.get_attribute("data-sha256") == variant["sha256"], f"variant {variant['sha256'][:12]} in order")
            svg = figure.find_element(By.CSS_SELECTOR, "svg.phone")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", svg)
            png = svg.screenshot_as_png
            with open(os.path.join(args.out, f"preview-{variant['width']}x{variant['height']}.png"), "wb") as file:
                file.write(png)
            box, count, rows, channels = color_box(png, variant["color"])
            width, height = box[2] - box[0], box[3] - box[1]
            check(count > 0, f"{variant['width']}x{variant['height']}: the creative's colour is on screen")
            # Aspect fill on a full display: the creative covers the whole screen, whatever its own shape.
            screen_width, screen_height = svg.size["width"], svg.size["height"]
            check(abs(width - screen_width) <= 3 and abs(height - screen_height) <= 3,
                  f"{variant['width']}x{variant['height']}: the creative fills the {screen_width}x{screen_height} screen ({width}x{height})")
            top_right = (box[0] + width // 2, box[1], box[2], box[1] + height // 8)
            check(dark_pixels(rows, channels, top_right) > 50, f"{variant['width']}x{variant['height']}: the countdown is drawn over the creative")
        jump = phones[0].find_element(By.CSS_SELECTOR, ".jump-target")
        check(not jump.is_displayed(), "the jump target is hidden before a tap")
        phones[0].find_element(By.CSS_SELECTOR, "[data-frame=click]").click()
        wait_for(lambda: jump.is_displayed(), 5, "the jump target after a tap")
        check(jump.text.startswith("opens "), f"a tap shows the jump target ({jump.text})")
        driver.execute_script("document.querySelector('.previews').scrollIntoView({block: 'start'}); window.scrollBy(0, -60)")
        driver.save_screenshot(os.path.join(args.out, "campaign.png"))

        # One screen asked for: each frame of the page where AdLayout puts it, within 1 pt.
        driver.get(base + f"/campaigns/{args.campaign}?{args.screen}")
        figures = driver.find_elements(By.CSS_SELECTOR, "figure.preview")
        check(len(figures) == len(variants) and all(len(f.find_elements(By.CSS_SELECTOR, "svg.phone")) == 1 for f in figures),
              "one phone per variant for the screen asked for")
        for figure in figures:
            sha256 = figure.get_attribute("data-sha256")
            svg = figure.find_element(By.CSS_SELECTOR, "svg.phone")
            points = driver.execute_script("return arguments[0].viewBox.baseVal.height", svg)  # the screen's height in points
            boxes = driver.execute_script(
                "var svg = arguments[0], origin = svg.getBoundingClientRect(), out = {};"
                " svg.querySelectorAll('[data-frame]').forEach(function (e) { var r = e.getBoundingClientRect();"
                " out[e.dataset.frame] = [r.left - origin.left, r.top - origin.top, r.width, r.height, origin.height]; });"
                " return out;", svg)
            expected = expected_frames[sha256]
            check(set(boxes) == set(expected), f"{sha256[:12]}: the frames drawn are the model's ({sorted(boxes)} vs {sorted(expected)})")
            worst = 0.0
            for name, want in expected.items():
                left, top, width, height, page_height = boxes[name]
                scale = page_height / points  # CSS pixels per point
                got = [left / scale, top / scale, width / scale, height / scale]
                error = max(abs(a - b) for a, b in zip(got, want))
                worst = max(worst, error)
                check(error <= 1.0, f"{sha256[:12]}: {name} at {[round(v, 2) for v in got]} pt, the model's {want} (off {error:.2f} pt)")
            print(f"  {sha256[:12]}: {len(expected)} frames, the largest difference {worst:.3f} pt", flush=True)
        one = figures[0].find_element(By.CSS_SELECTOR, "svg.phone")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", one)
        with open(os.path.join(args.out, "preview-screen.png"), "wb") as file:
            file.write(one.screenshot_as_png)

        # A forged CSRF token: refused, nothing changed.
        driver.get(base + f"/campaigns/{args.campaign}/pause")
        driver.execute_script("document.querySelectorAll('input[name=csrf]').forEach(function (input) { input.value = 'f'.repeat(64); })")
        driver.find_element(By.ID, "confirm").click()
        wait_for(lambda: "security token" in driver.find_element(By.CSS_SELECTOR, ".error").text, 10, "the forged-token refusal")
        driver.get(base + f"/campaigns/{args.campaign}")
        check("live" in driver.find_element(By.ID, "fields").text, "a forged CSRF token changed nothing")

        # The edges page, live: a write made elsewhere (a script with the bearer token) shows up without a reload.
        driver.get(base + "/edges")
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#edges tbody tr[data-edge]")) == args.edges, 10, "every edge listed")
        driver.execute_script("window.notReloaded = true")
        request = urllib.request.Request(base + f"/campaigns/{args.campaign}/force", data=b"confirm=yes", method="POST",
                                         headers={"Authorization": f"Bearer {args.token}",
                                                  "Content-Type": "application/x-www-form-urlencoded"})

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *rest):
                return None
        try:
            urllib.request.build_opener(NoRedirect).open(request)
            fail("the force answered no redirect")
        except urllib.error.HTTPError as answer:
            check(answer.code == 303, "a script forces the campaign with its bearer token")
            forced_seq = int(answer.headers["Location"].rsplit("/", 1)[1])
        wait_for(lambda: all(value >= forced_seq for value in edge_seqs(driver)), 15, "the edges at the forced seq")
        check(driver.execute_script("return window.notReloaded === true"), f"the edges page reached seq {forced_seq} live, without a reload")
        driver.save_screenshot(os.path.join(args.out, "edges.png"))

        # Expire from the console, confirmed, then the change spreading to the edges, one by one.
        driver.get(base + f"/campaigns/{args.campaign}")
        driver.find_element(By.LINK_TEXT, "Expire").click()
        wait_for(lambda: driver.current_url.endswith("/expire") and driver.find_element(By.ID, "confirm"), 10, "the confirmation page")
        driver.find_element(By.ID, "confirm").click()
        wait_for(lambda: "/changes/" in driver.current_url, 10, "the change page")
        seq = int(driver.current_url.rsplit("/", 1)[1])
        wait_for(lambda: f"{args.edges} of {args.edges} edges have applied seq {seq}" in driver.find_element(By.ID, "spread-status").text,
                 20, "every edge to apply the expire")
        times = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#spread .reached")]
        check(len(times) == args.edges, f"each edge's time to apply seq {seq}: {', '.join(times)}")
        driver.save_screenshot(os.path.join(args.out, "spread.png"))
        driver.get(base + "/edges")
        wait_for(lambda: len(edge_seqs(driver)) == args.edges, 10, "every edge listed")
        applied = edge_seqs(driver)
        check(all(value >= seq for value in applied), f"the edges page shows every edge at seq {seq} or later ({applied})")
    finally:
        driver.quit()
    print("all browser checks passed", flush=True)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as error:  # a WebDriver error: say which, as a failed check
        fail(f"{type(error).__name__}: {error}")
