#!/usr/bin/env python3
"""Drives the care app in a real browser: Debian's chromium, headless, through /usr/bin/chromedriver (Selenium).

One subcommand per scenario (Tests/CareWebTests/BrowserTests.swift runs them against a `carebridge serve` it
started). Every wait is for a condition in the page, with a generous timeout (a loaded 2-core machine); nothing
sleeps. Exit status: 0 when every check held, 1 with "FAIL: ..." on standard error when one did not, 3 when
selenium, axe-selenium-python, chromium or chromedriver is missing (the Swift side fails on that under CI=true).

    care_app.py probe
    care_app.py login --url URL --user anna --password-file pw --patient anna --patient-name "Anna Weber"
    care_app.py live --url URL ... --task weigh-in --day 2026-11-20 --expect "72.5 kg" -- carebridge replay ...
"""

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.parse

NOT_INSTALLED = 3
CHROMIUM = os.environ.get("CAREBRIDGE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CAREBRIDGE_CHROMEDRIVER", "/usr/bin/chromedriver")
# CSS pixels; the phone is an iPhone 12-14 sized viewport, emulated (headless chromium has no 390 px window).
# "narrow" is the 360 px the issue asks every screen to work at.
SIZES = {"phone": (390, 844, True), "desktop": (1280, 900, False), "narrow": (360, 740, True)}

try:
    from axe_selenium_python import Axe
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as missing:
    print(f"not installed: {missing} (pip install selenium axe-selenium-python)", file=sys.stderr)
    sys.exit(NOT_INSTALLED)


class Failure(Exception):
    """A check that did not hold; the message says what was expected and what the page showed."""


def check(condition, message):
    if not condition:
        raise Failure(message)


class Browser:
    """One headless chromium with the helpers the scenarios share."""

    def __init__(self, base, timeout):
        self.base = base.rstrip("/")
        self.timeout = timeout
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--no-first-run", "--disable-extensions", "--lang=en-GB"]:
            options.add_argument(argument)
        # chromedriver from Debian, given by path: Selenium Manager never looks for (or downloads) a driver.
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(timeout)
        self.driver.set_script_timeout(timeout)
        # Every EventSource the page opens, so a scenario can wait until the live stream is connected.
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            (function () {
              var Original = window.EventSource;
              if (!Original) return;
              window.__eventSources = [];
              window.EventSource = function (url, init) {
                var source = new Original(url, init);
                window.__eventSources.push(source);
                return source;
              };
              window.EventSource.prototype = Original.prototype;
            })();
        """})
        self.size("desktop")

    def quit(self):
        self.driver.quit()

    def size(self, name):
        width, height, mobile = SIZES[name]
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
        })

    def url(self, path):
        return self.base + path

    def get(self, path):
        self.driver.get(self.url(path))

    def path(self):
        return urllib.parse.urlsplit(self.driver.current_url).path

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def text(self, selector):
        """The text of the first element matching `selector`, or None (read in the page: never stale)."""
        return self.js("var e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;",
                       selector)

    def wait(self, what, condition, timeout=None):
        """Waits until `condition(driver)` is truthy; fails saying `what` and what the page shows."""
        try:
            return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.1).until(condition)
        except TimeoutException:
            raise Failure(f"timed out after {timeout or self.timeout} s waiting for {what}; the page at "
                          f"{self.driver.current_url} shows:\n{self.page_text()}")

    def page_text(self):
        return self.js("return document.body ? document.body.innerText : ''") or ""

    def wait_for_text(self, selector, expected, timeout=None):
        """Waits until the element's text contains `expected`; returns the text."""
        return self.wait(f"{selector} to contain {expected!r}",
                         lambda _: expected in (self.text(selector) or "") and self.text(selector), timeout)

    def submit(self, button_selector):
        """Clicks a submit button and waits for the next page (the old document's body goes stale)."""
        marker = self.js("return document.body;")
        self.wait(f"{button_selector} to be clicked", lambda _: self.click(button_selector))
        self.wait(f"the page after clicking {button_selector}", lambda _: self.is_stale(marker))

    def click(self, selector):
        """Clicks the element; False when a live update replaced it between finding and clicking (try again)."""
        try:
            button = self.driver.find_element(By.CSS_SELECTOR, selector)
            self.js("arguments[0].scrollIntoView({block: 'center'});", button)
            button.click()
            return True
        except StaleElementReferenceException:
            return False

    def is_stale(self, element):
        try:
            element.is_enabled()
            return False
        except Exception:  # StaleElementReferenceException: a new document has loaded.
            return self.js("return document.readyState") == "complete"

    def sign_in(self, user, password, expect_path=None):
        self.get("/login")
        self.wait("the sign-in form", lambda _: self.text("h1") == "Sign in")
        field = self.driver.find_element(By.ID, "username")
        field.clear()
        field.send_keys(user)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.submit("form.login button[type=submit]")
        if expect_path:
            self.wait(f"{expect_path} after signing in", lambda _: self.path() == expect_path)

    def fetch_status(self, path, method="GET", body=None):
        """The HTTP status of a request made by the page (same origin, its cookies)."""
        return self.driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            var init = {method: arguments[1], credentials: 'same-origin', redirect: 'manual'};
            if (arguments[2] !== null) {
              init.body = arguments[2];
              init.headers = {'Content-Type': 'application/x-www-form-urlencoded'};
            }
            var controller = new AbortController();
            init.signal = controller.signal;
            fetch(arguments[0], init)
              .then(function (r) {
                var status = r.type === 'opaqueredirect' ? 'redirect' : r.status;
                return r.text().then(function (t) { controller.abort(); done([status, t]); },
                                     function () { done([status, '']); });
              })
              .catch(function (e) { done(['error', String(e)]); });
        """, path, method, body)

    def state(self, task):
        return self.text(f'li[data-task="{task}"] .state')

    # MARK: Keyboard alone

    def keys(self):
        from selenium.webdriver.common.action_chains import ActionChains
        return ActionChains(self.driver)

    def focused(self):
        """The focused element as "id-or-name|value|text"."""
        return self.js("var e = document.activeElement; return e ? (e.id || e.name || e.tagName) + '|' + "
                       "(e.getAttribute('value') || '') + '|' + e.textContent.trim().slice(0, 40) : '';")

    def focus_ring(self):
        """The focused element draws an outline or a shadow (a visible focus indicator)."""
        return self.js("var e = document.activeElement; if (!e || e === document.body) return false;"
                       "var s = getComputedStyle(e); return (s.outlineStyle !== 'none' && "
                       "parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none';")

    def tab_to(self, what, matches, limit=60):
        """Presses Tab until `matches(focused())`; fails when the element is never reached or shows no focus."""
        seen = []
        for _ in range(limit):
            self.keys().send_keys(Keys.TAB).perform()
            current = self.focused()
            seen.append(current)
            if matches(current):
                check(self.focus_ring(), f"{what} is focused ({current}) but shows no focus indicator")
                return
        raise Failure(f"{limit} presses of Tab never reached {what}; focus went through: {seen}")

    def tab_to_link(self, href):
        """Presses Tab until the link to `href` is focused (and shows it)."""
        self.tab_to(f"the link to {href}",
                    lambda _: self.js("var e = document.activeElement;"
                                      "return e && e.getAttribute('href') === arguments[0];", href))

    def press_enter(self, what, text=""):
        """Types `text` and Enter into the focused element and waits for the page that follows."""
        marker = self.js("return document.body;")
        self.keys().send_keys(text + Keys.ENTER).perform()
        self.wait(f"the page after pressing Enter on {what}", lambda _: self.is_stale(marker))

    def sign_in_with_keys(self, user, password, expect_path):
        """Signs in with Tab, typing and Enter alone, and waits for `expect_path`."""
        self.get("/login")
        self.wait("the sign-in form", lambda _: self.text("h1") == "Sign in")
        self.tab_to("the user name field", lambda f: f.startswith("username|"))
        self.keys().send_keys(user).perform()
        self.tab_to("the password field", lambda f: f.startswith("password|"))
        self.press_enter("the password field", password)
        self.wait(f"{expect_path} after signing in", lambda _: self.path() == expect_path)

    # MARK: Landmarks

    def landmark_problems(self):
        """What a screen reader needs to find its way, checked in the page: its language and title, one main
        landmark holding the one h1, labelled navigation, tables with a caption and header cells, and every link,
        button and field with a name."""
        return self.js("""
            var problems = [];
            if (!document.documentElement.lang) problems.push('no lang on <html>');
            if (!document.title.trim()) problems.push('no <title>');
            var mains = document.querySelectorAll('main, [role=main]');
            if (mains.length !== 1) problems.push(mains.length + ' main landmarks');
            var headings = document.querySelectorAll('h1');
            if (headings.length !== 1) problems.push(headings.length + ' h1 headings');
            else if (mains.length && !mains[0].contains(headings[0])) problems.push('the h1 is outside main');
            var navigation = document.querySelectorAll('nav, [role=navigation]');
            if (!navigation.length) problems.push('no navigation landmark');
            navigation.forEach(function (n) {
              if (!n.getAttribute('aria-label') && !n.getAttribute('aria-labelledby'))
                problems.push('a navigation landmark without a label');
            });
            if (!document.querySelector('header, [role=banner]')) problems.push('no banner landmark');
            document.querySelectorAll('table').forEach(function (t) {
              if (!t.querySelector('caption') && !t.getAttribute('aria-label')) problems.push('a table without caption');
              if (!t.querySelector('th[scope=col]')) problems.push('a table without column headers');
            });
            document.querySelectorAll('a[href], button').forEach(function (e) {
              if (!e.textContent.trim() && !e.getAttribute('aria-label')) problems.push(e.outerHTML + ' has no name');
            });
            document.querySelectorAll('input:not([type=hidden]), select, textarea').forEach(function (e) {
              if (!(e.labels && e.labels.length) && !e.getAttribute('aria-label')) problems.push('#' + e.id + ' has no label');
            });
            return problems;
        """)


def read_password(path):
    with open(path, encoding="utf-8") as handle:
        return handle.readline().rstrip("\n")


def today_path(args, day=None):
    return f"/patients/{args.patient}/today" + (f"?day={day}" if day else "")


def run_command(command):
    """Runs the command the test gave after `--` (replay, users revoke) and fails unless it exits 0."""
    check(command, "this scenario needs a command after --")
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    check(result.returncode == 0,
          f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    print(f"ran: {' '.join(command)}")


# MARK: - Scenarios


def scenario_login(browser, args):
    """A wrong password shows the error and stays on the sign-in page; the right one lands on Today."""
    password = read_password(args.password_file)
    browser.sign_in(args.user, password + "-wrong")
    browser.wait_for_text("p.error", "The user name or the password is wrong.")
    check(browser.path() == "/login", f"a wrong password left the sign-in page for {browser.path()}")
    check(browser.driver.find_element(By.ID, "username").get_attribute("value") == args.user,
          "the sign-in form forgot the user name after a wrong password")
    browser.sign_in(args.user, password, expect_path=today_path(args))
    heading = browser.text("h1") or ""
    check(args.patient_name in heading, f"Today's heading is {heading!r}, not the patient {args.patient_name!r}")
    check(browser.text(".who") == args.user_name, f"signed in as {browser.text('.who')!r}, not {args.user_name!r}")
    check(browser.text("#progress") is not None, "Today has no progress ring")


def scenario_done_undo(browser, args):
    """Done turns the medication's state to "Done at … by USER"; Undo turns it back to "To do"."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path=today_path(args))
    item = f'li[data-task="{args.task}"]'
    browser.wait_for_text(f"{item} .state", "To do")
    browser.submit(f'{item} button[value="done"]')
    state = browser.wait_for_text(f"{item} .state", "Done at")
    check(state.endswith(f"by {args.user}"), f"the Done state {state!r} does not name who did it ({args.user})")
    check("done" in (browser.js(f"return document.querySelector('{item}').className") or ""),
          "the event is not marked done")
    browser.submit(f'{item} button[value="undo"]')
    browser.wait_for_text(f"{item} .state", "To do")
    check(browser.driver.find_elements(By.CSS_SELECTOR, f'{item} button[value="done"]'),
          "after Undo the Done button is not back")


def scenario_answer(browser, args):
    """Answering the scale shows the answer as the event's state."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path=today_path(args))
    item = f'li[data-task="{args.task}"]'
    field = browser.wait(f"the answer field of {args.task}",
                         lambda d: d.find_element(By.CSS_SELECTOR, f"{item} input[name=answer]"))
    label = browser.text(f'{item} label[for="{field.get_attribute("id")}"]')
    check(label, f"the answer field of {args.task} has no label")
    field.send_keys(args.value)
    browser.submit(f'{item} button[value="answer"]')
    state = browser.wait_for_text(f"{item} .state", args.expect)
    check(state.endswith(f"by {args.user}"), f"the answer's state {state!r} does not name who answered")
    check(not browser.driver.find_elements(By.CSS_SELECTOR, f"{item} input[name=answer]"),
          "the answer form is still shown after answering")


def scenario_live(browser, args):
    """A reading stored by another process completes the event on the open page, without a reload."""
    browser.sign_in(args.user, read_password(args.password_file))
    browser.get(today_path(args, args.day))
    item = f'li[data-task="{args.task}"]'
    before = browser.wait(f"the {args.task} event", lambda _: browser.state(args.task))
    check(args.expect not in before, f"{args.task} shows {args.expect!r} before the reading came: {before!r}")
    browser.js("window.__marker = 1;")
    browser.wait("the live stream to connect",
                 lambda _: browser.js("return (window.__eventSources || []).some(function (s) "
                                      "{ return s.readyState === 1; });"))
    run_command(args.command)
    state = browser.wait_for_text(f"{item} .state", args.expect)
    check(browser.js("return window.__marker;") == 1, "the page was reloaded (the marker set before is gone)")
    check("done" in browser.js(f"return document.querySelector('{item}').className"),
          f"the {args.task} event is not marked done: {state!r}")
    status = browser.text("#live-status") or ""
    check(status.startswith("Updated"), f"the live region did not announce the update: {status!r}")
    print(f"live: {state}")


def scenario_forbidden(browser, args):
    """A user not linked to a patient gets 403 on that patient's page, API, live stream and form."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path=today_path(args))
    csrf = browser.js("return document.querySelector('input[name=csrf]').value;")
    other = args.other
    browser.get(f"/patients/{other}/today")
    browser.wait_for_text("h1", "403")
    check("You are not linked to this patient." in browser.page_text(), "the 403 page does not say why")
    form = urllib.parse.urlencode({"csrf": csrf, "task": args.task, "occurrence": "0", "day": "2026-11-20",
                                   "action": "done"})
    entry = urllib.parse.urlencode({"csrf": csrf, "type": "bodyMass", "reading": "80 kg"})
    refused = [
        (f"/patients/{other}/today", "GET", None),
        (f"/patients/{other}/today?day=2026-11-20", "GET", None),
        (f"/patients/{other}/live", "GET", None),
        (f"/api/patients/{other}/today", "GET", None),
        (f"/patients/{other}/today/record", "POST", form),
        (f"/patients/{other}/readings", "GET", None),
        (f"/patients/{other}/readings?type=bodyMass", "GET", None),
        (f"/patients/{other}/readings", "POST", entry),
        (f"/patients/{other}/devices", "GET", None),
        (f"/patients/{other}/inbox/0193f0c2-5b1e-7a11-8c3d-2f6e4a9b1c0d/assign", "POST", form),
    ]
    for path, method, body in refused:
        status, text = browser.fetch_status(path, method, body)
        check(status == 403, f"{method} {path} as {args.user}: {status}, not 403")
        check(args.other_name not in text, f"{method} {path}: the refusal shows {args.other_name!r}: {text[:300]}")
    status, text = browser.fetch_status(f"/api/patients/{other}/today")
    check(json.loads(text).get("error") == "You are not linked to this patient.", f"the API's 403 body: {text}")
    # The same routes for the user's own patient answer (so the 403s above are about the patient, not the route).
    for path in [today_path(args), f"/api/patients/{args.patient}/today"]:
        status, _ = browser.fetch_status(path)
        check(status == 200, f"GET {path} for {args.user}'s own patient: {status}, not 200")


def scenario_reading_entry(browser, args):
    """A reading typed in with the keyboard alone (Tab to the field, type, Enter) appears in the list, named as typed
    in by the user; a reading that is no reading is refused with the message and the typed text kept."""
    browser.sign_in(args.user, read_password(args.password_file))
    readings = f"/patients/{args.patient}/readings"
    browser.get(readings)
    browser.wait_for_text("h1", "Readings")
    field = browser.driver.find_element(By.ID, "entry-reading")
    check(browser.text('label[for="entry-reading"]'), "the reading field has no label")
    field.send_keys("72 kg kg" + Keys.ENTER)
    browser.wait_for_text("p.error", "Cannot read")
    check(browser.driver.find_element(By.ID, "entry-reading").get_attribute("value") == "72 kg kg",
          "the refused form forgot what was typed")
    field = browser.driver.find_element(By.ID, "entry-reading")
    field.clear()
    field.send_keys(args.value + Keys.ENTER)
    browser.wait("the typed reading in the list",
                 lambda _: args.expect in (browser.text("table.readings tbody") or ""))
    row = browser.js("var wanted = arguments[0];"
                     "var rows = Array.from(document.querySelectorAll('table.readings tbody tr'));"
                     "var r = rows.find(function (r) { return r.textContent.indexOf(wanted) >= 0; });"
                     "return r ? r.textContent : '';", args.expect) or ""
    check(f"typed in by {args.user}" in row, f"the typed reading's row does not name who typed it: {row!r}")


def scenario_release(browser, args):
    """The care team opens a quarantined reading, releases it with a reason, and the list says who released it."""
    browser.sign_in(args.user, read_password(args.password_file))
    browser.get(f"/patients/{args.patient}/readings?show=quarantined&from={args.day}")
    browser.wait_for_text("table.readings tbody", "quarantined")
    browser.submit("table.readings a[href*='/readings/']")
    browser.wait_for_text("h1", "A quarantined reading")
    check("Deleting cannot be undone" in browser.page_text(), "the delete form does not say it cannot be undone")
    browser.driver.find_element(By.ID, "release-reason").send_keys(args.reason)
    browser.submit("#release-reason ~ button")
    browser.wait_for_text("table.readings tbody", f"Released from quarantine by {args.user}: {args.reason}")


def scenario_inbox(browser, args):
    """An inbox reading filed with "This was <patient>" leaves the inbox."""
    browser.sign_in(args.user, read_password(args.password_file))
    browser.get(f"/patients/{args.patient}/devices")
    browser.wait_for_text("#inbox-heading", "Readings nobody is filed for")
    before = len(browser.driver.find_elements(By.CSS_SELECTOR, ".inbox-reading"))
    check(before > 0, "the inbox is empty before filing")
    browser.submit(f".inbox-reading form[action^='/patients/{args.patient}/inbox/'] button")
    browser.wait("the filed reading to leave the inbox",
                 lambda _: len(browser.driver.find_elements(By.CSS_SELECTOR, ".inbox-reading")) < before)


def scenario_revoked(browser, args):
    """After the session is ended elsewhere (`carebridge users revoke`), the next page is the sign-in page."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path=today_path(args))
    run_command(args.command)
    browser.get(today_path(args))
    browser.wait("the sign-in page", lambda _: browser.path() == "/login")
    check(browser.text("h1") == "Sign in", f"the page after the session ended is {browser.text('h1')!r}")
    target = urllib.parse.parse_qs(urllib.parse.urlsplit(browser.driver.current_url).query).get("next", [""])[0]
    check(target == today_path(args), f"the sign-in page would return to {target!r}, not {today_path(args)!r}")
    status, _ = browser.fetch_status(f"/api/patients/{args.patient}/today")
    check(status == 401, f"the API after the session ended: {status}, not 401")


def scenario_csrf(browser, args):
    """A form posted without its CSRF token is refused with the 403 page, and nothing is recorded."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path=today_path(args))
    item = f'li[data-task="{args.task}"]'
    browser.wait_for_text(f"{item} .state", "To do")
    # Removed and submitted in one script: a live update between the two would put the form back (with its token).
    old_body = browser.js("return document.body;")
    removed = browser.js(f"""
        var button = document.querySelector('{item} button[value="done"]');
        var input = button.form.querySelector('input[name=csrf]');
        if (!input) return false;
        input.remove();
        button.form.requestSubmit(button);
        return true;
    """)
    check(removed, "the Done form has no csrf field to remove")
    browser.wait("the page after posting the form without its token", lambda _: browser.is_stale(old_body))
    browser.wait_for_text("h1", "403")
    check("This form has expired or did not come from CareBridge" in browser.page_text(),
          "the 403 page does not say the form was refused")
    form = urllib.parse.urlencode({"csrf": "forged", "task": args.task, "occurrence": "0", "action": "done"})
    status, _ = browser.fetch_status(today_path(args) + "/record", "POST", form)
    check(status == 403, f"a form with a wrong token: {status}, not 403")
    browser.get(today_path(args))
    state = browser.wait(f"the {args.task} event", lambda _: browser.state(args.task))
    check(state == "To do", f"the refused forms recorded something: {args.task} is {state!r}")


def scenario_throttle(browser, args):
    """Five wrong passwords, then even the right one is refused for a while."""
    password = read_password(args.password_file)
    for attempt in range(1, 6):
        browser.sign_in(args.user, f"wrong-{attempt}")
        browser.wait_for_text("p.error", "The user name or the password is wrong.")
    browser.sign_in(args.user, password)
    browser.wait_for_text("p.error", "Too many wrong passwords")
    check(browser.path() == "/login", f"a throttled sign-in went on to {browser.path()}")
    browser.get("/")
    browser.wait("the sign-in page (no session)", lambda _: browser.path() == "/login")


def scenario_axe(browser, args):
    """axe-core on each page at each size: no serious or critical violation. Screenshots when asked."""
    if args.user:
        browser.sign_in(args.user, read_password(args.password_file))
    failures = []
    for size in args.sizes.split(","):
        browser.size(size)
        browser.get(args.path)
        browser.wait(f"{args.path} to load", lambda _: browser.js("return document.readyState") == "complete")
        check(browser.path() == urllib.parse.urlsplit(args.path).path,
              f"{args.path} went to {browser.path()} (not signed in?)")
        overflow = browser.js("return document.documentElement.scrollWidth - window.innerWidth;")
        check(overflow <= 0, f"{args.path} at {size} is {overflow} px wider than the window (scrolls sideways)")
        shown = re.findall(r"[^\n]*\b(?:-?inf|nan)\b[^\n]*", browser.page_text(), re.IGNORECASE)
        check(not shown, f"{args.path} shows a number that is no number: {shown}")
        for selector in args.present:
            found = browser.wait(f"{selector} on {args.path}",
                                 lambda _: browser.driver.find_elements(By.CSS_SELECTOR, selector))
            check(found, f"{args.path} has no {selector}")
        for expected in args.state:
            task, _, text = expected.partition("=")
            state = browser.wait(f"the {task} event", lambda _: browser.state(task))
            check(text in state, f"{task} shows {state!r}, not {text!r}")
        failures += axe_failures(browser, args.path, size)
        if args.screenshot_dir:
            path = os.path.join(args.screenshot_dir, f"{args.screenshot_name}-{size}.png")
            os.makedirs(args.screenshot_dir, exist_ok=True)
            save_full_page(browser, size, path)
            print(f"screenshot: {path}")
    check(not failures, f"axe found serious or critical violations on {args.path}:\n" + "\n".join(failures))


def axe_failures(browser, path, size):
    """axe-core on the page as it is: its serious or critical violations, each with the elements concerned."""
    axe = Axe(browser.driver)
    axe.inject()
    results = axe.run()
    serious = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    others = [f"{v['id']} ({v.get('impact')})" for v in results["violations"] if v not in serious]
    print(f"axe {path} {size}: {len(results['passes'])} rules pass, {len(serious)} serious or critical, "
          f"minor/moderate: {', '.join(others) or 'none'}")
    failures = []
    for violation in serious:
        nodes = "\n".join(f"      {node['target']}: {node.get('failureSummary', '').strip()}"
                          for node in violation["nodes"])
        failures.append(f"  [{size}] {violation['id']} ({violation['impact']}): {violation['help']}\n"
                        f"    {violation['helpUrl']}\n{nodes}")
    return failures


def scenario_zone(browser, args):
    """Settings: the browser's own zone is offered, and choosing it saves nothing; ZONE chosen and saved moves
    Today's times into it (TASK's state from BEFORE to EXPECT) while the page keeps the plan's day. axe on the
    settings page at each size."""
    from selenium.webdriver.support.ui import Select

    browser.sign_in(args.user, read_password(args.password_file))
    browser.get(today_path(args, args.day))
    before = browser.wait(f"the {args.task} event", lambda _: browser.state(args.task))
    check(args.before in before, f"{args.task} shows {before!r} before the zone changed, not {args.before!r}")
    heading = browser.text("h1")
    check(browser.text(".zone-note") is None, "a zone is named while the user reads the plan's zone")

    failures = []
    for size in args.sizes.split(","):
        browser.size(size)
        browser.get("/settings")
        browser.wait("the settings page", lambda _: browser.text("h1") and browser.text("h1").startswith("Settings"))
        failures += axe_failures(browser, "/settings", size)
    check(not failures, "axe found serious or critical violations on /settings:\n" + "\n".join(failures))

    # The browser's zone (the test runs chromium in the bridge's zone) is offered, never applied by itself.
    own = browser.js("return Intl.DateTimeFormat().resolvedOptions().timeZone;")
    select = lambda: Select(browser.driver.find_element(By.ID, "zone"))
    check(select().first_selected_option.get_attribute("value") == "", "a new user's zone is not the bridge's")
    if own and own != "UTC":
        offered = browser.wait("the browser's zone offered",
                               lambda _: browser.js("var s = document.querySelector('[data-zone-suggest]');"
                                                    "return s && !s.hidden ? s.textContent : null;"))
        check(own in offered, f"the suggestion {offered!r} does not name the browser's zone {own}")
        browser.click("[data-zone-suggest] button")
        check(select().first_selected_option.get_attribute("value") == own, "choosing the suggestion did not select it")
        browser.get("/settings")
        check(select().first_selected_option.get_attribute("value") == "",
              "the browser's zone was saved without the Save button")

    select().select_by_value(args.zone)
    browser.submit("form.entry button[type=submit]")
    browser.wait_for_text("p.notice", f"Saved: times are now shown in {args.zone}")

    browser.get(today_path(args, args.day))
    after = browser.wait(f"the {args.task} event in {args.zone}",
                         lambda _: args.expect in (browser.state(args.task) or "") and browser.state(args.task))
    check(browser.text("h1") == heading, f"the day changed with the zone: {browser.text('h1')!r}, was {heading!r}")
    note = browser.text(".zone-note") or ""
    check(args.zone in note, f"the page does not name the zone its times are in: {note!r}")
    print(f"{args.task}: {before!r} -> {after!r}; {note}")


def scenario_keyboard(browser, args):
    """Sign-in and Done with the keyboard alone: Tab moves through the controls in order, each visibly focused,
    and Enter signs in and records the dose."""
    browser.sign_in_with_keys(args.user, read_password(args.password_file), today_path(args))
    item = f'li[data-task="{args.task}"]'
    browser.wait_for_text(f"{item} .state", "To do")
    browser.tab_to(f"the Done button of {args.task}",
                   lambda f: f.startswith("action|done|") and browser.js(
                       f"return document.querySelector('{item}').contains(document.activeElement);"))
    browser.press_enter("Done")
    state = browser.wait_for_text(f"{item} .state", "Done at")
    print(f"keyboard: {state}")


def scenario_reflow(browser, args):
    """The page at 320 and 360 CSS px (a phone, and 1280 px at 400 %) and at 640 px (1280 px at 200 %): nothing
    scrolls sideways, and on the phone every button, link and field is at least 44 by 44 px (WCAG 2.2 target
    size, enhanced)."""
    browser.sign_in(args.user, read_password(args.password_file))
    problems = []
    for width, mobile in [(320, True), (360, True), (640, False)]:
        browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 800, "deviceScaleFactor": 1, "mobile": mobile,
        })
        browser.get(args.path)
        browser.wait(f"{args.path} to load", lambda _: browser.js("return document.readyState") == "complete")
        wide = browser.js("return document.documentElement.scrollWidth;")
        if wide > width + 1:
            culprits = browser.js("""
                var width = arguments[0];
                return Array.from(document.querySelectorAll('body *')).filter(function (e) {
                  var r = e.getBoundingClientRect(); return r.right > width + 1 && r.width > 0;
                }).slice(0, 5).map(function (e) { return e.tagName + '.' + e.className + ' ' +
                  Math.round(e.getBoundingClientRect().right) + 'px'; });
            """, width)
            problems.append(f"at {width} px the page is {wide} px wide: {culprits}")
        if mobile:
            small = browser.js("""
                return Array.from(document.querySelectorAll(
                    'button, a[href], input:not([type=hidden]), select, textarea, summary')).map(function (e) {
                  // A radio or a checkbox is tapped through the label around it.
                  var target = /^(radio|checkbox)$/.test(e.type) && e.closest('label') ? e.closest('label') : e;
                  var inline = e.tagName === 'A' && e.closest('p, td, li.contact, dd');
                  return {e: e, r: target.getBoundingClientRect(), inline: inline};
                }).filter(function (t) {
                  return !(t.r.width === 0 && t.r.height === 0) && !t.inline && (t.r.width < 44 || t.r.height < 44);
                }).map(function (t) {
                  return (t.e.id || t.e.name || t.e.textContent.trim().slice(0, 30) || t.e.tagName) + ' ' +
                         Math.round(t.r.width) + 'x' + Math.round(t.r.height);
                });
            """)
            if small:
                problems.append(f"at {width} px these targets are under 44 x 44 px: {small}")
    browser.size("desktop")
    check(not problems, f"{args.path}:\n  " + "\n  ".join(problems))
    print(f"reflow {args.path}: no sideways scroll at 320/360/640 px, targets at least 44 px")


def save_full_page(browser, size, path):
    """The whole page at the size's width (the viewport grown to the document's height, then restored)."""
    width, height, mobile = SIZES[size]
    full = max(height, int(browser.js("return document.documentElement.scrollHeight")))
    browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": full, "deviceScaleFactor": 1, "mobile": mobile,
    })
    browser.js("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur();")
    check(browser.driver.save_screenshot(path), f"could not write {path}")
    browser.size(size)


# MARK: - The hub's dashboard (/overview)


def overview_order(browser):
    return browser.js("return Array.from(document.querySelectorAll('tr[data-patient]'))"
                      ".map(function (r) { return r.getAttribute('data-patient'); });")


def check_landmarks(browser):
    problems = browser.landmark_problems()
    check(not problems, f"{browser.path()} lacks what a screen reader needs: {problems}")


def scenario_overview(browser, args):
    """The care team signs in and lands on the overview: every patient of ORDER in that order (urgent first), each
    PRESENT text shown; the patient's link opens their page with their name as its heading. Both pages have their
    landmarks and labels."""
    browser.get("/overview")
    browser.wait("the sign-in page (signed out)", lambda _: browser.path() == "/login")
    browser.sign_in(args.user, read_password(args.password_file), expect_path="/overview")
    browser.wait_for_text("h1", "Overview")
    order = overview_order(browser)
    check(order == args.order.split(","), f"the overview lists {order}, not {args.order}")
    page = browser.page_text()
    for expected in args.present:
        check(expected in page, f"the overview does not show {expected!r}:\n{page}")
    check_landmarks(browser)
    urgent = browser.js("return Array.from(document.querySelectorAll('tr.urgent[data-patient]'))"
                        ".map(function (r) { return r.getAttribute('data-patient'); });")
    check(urgent and order[:len(urgent)] == urgent, f"urgent patients {urgent} are not first in {order}")
    browser.submit(f'tr[data-patient="{args.patient}"] a')
    check(browser.path() == f"/overview/{args.patient}", f"the link opened {browser.path()}")
    heading = browser.wait_for_text("h1", args.patient_name)
    check_landmarks(browser)
    print(f"overview: {order}; {heading}")


def scenario_overview_keyboard(browser, args):
    """The overview with the keyboard alone: sign in with Tab and Enter, Tab to the patient's link (visibly
    focused), Enter opens their page."""
    browser.sign_in_with_keys(args.user, read_password(args.password_file), "/overview")
    target = f"/overview/{args.patient}"
    browser.tab_to_link(target)
    browser.press_enter(f"the link to {target}")
    check(browser.path() == target, f"Enter on the link opened {browser.path()}")
    heading = browser.wait_for_text("h1", args.patient_name)
    if args.record_day:
        # The patient's record by day, the day before, then an open alert acknowledged: Tab and Enter alone.
        record = f"/overview/{args.patient}/record"
        browser.tab_to_link(record)
        browser.press_enter(f"the link to {record}")
        check(browser.path() == record, f"Enter on the record's link opened {browser.path()}")
        browser.wait("the day's readings", lambda _: browser.js("return !!document.querySelector('table.readings');"))
        browser.tab_to("the previous day's link", lambda f: "Previous day" in f)
        browser.press_enter("the previous day's link")
        day = browser.js("return new URL(location.href).searchParams.get('day');")
        check(day == args.record_day, f"the previous day is {day}, not {args.record_day}")
        browser.get(target)
        browser.tab_to("an Acknowledge button", lambda f: "Acknowledge" in f)
        browser.press_enter("the Acknowledge button")
        notice = browser.wait_for_text("p.notice", "Acknowledgement sent")
        heading += f"; {notice}"
    print(f"overview with the keyboard: {heading}")


def scenario_overview_forbidden(browser, args):
    """A user linked to PATIENT sees only them on the overview; every REFUSED patient's page is 403 and shows no
    SECRET (their readings, homes, names)."""
    browser.sign_in(args.user, read_password(args.password_file), expect_path="/overview")
    order = overview_order(browser)
    check(order == [args.patient], f"the overview of {args.user} lists {order}, not only {args.patient}")
    page = browser.page_text()
    for secret in args.secret:
        check(secret not in page, f"the overview of {args.user} shows {secret!r}")
    status, _ = browser.fetch_status(f"/overview/{args.patient}")
    check(status == 200, f"GET /overview/{args.patient} for {args.user}'s own patient: {status}, not 200")
    for other in args.refused:
        browser.get(f"/overview/{other}")
        browser.wait_for_text("h1", "403")
        status, text = browser.fetch_status(f"/overview/{other}")
        check(status == 403, f"GET /overview/{other} as {args.user}: {status}, not 403")
        for secret in args.secret:
            check(secret not in text, f"/overview/{other}: the refusal shows {secret!r}: {text[:300]}")


SCENARIOS = {
    "login": scenario_login, "done-undo": scenario_done_undo, "answer": scenario_answer, "live": scenario_live,
    "forbidden": scenario_forbidden, "revoked": scenario_revoked, "csrf": scenario_csrf,
    "throttle": scenario_throttle, "axe": scenario_axe, "reading-entry": scenario_reading_entry,
    "release": scenario_release, "inbox": scenario_inbox, "keyboard": scenario_keyboard, "reflow": scenario_reflow,
    "zone": scenario_zone, "overview": scenario_overview, "overview-keyboard": scenario_overview_keyboard,
    "overview-forbidden": scenario_overview_forbidden,
}


def probe():
    """Exit 0 when chromium and chromedriver are there (the imports above already succeeded)."""
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not os.access(tool, os.X_OK):
            print(f"not installed: {tool} (apt-get install chromium chromium-driver)", file=sys.stderr)
            return NOT_INSTALLED
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=sorted(SCENARIOS) + ["probe"])
    parser.add_argument("--url", help="the care app, http://127.0.0.1:PORT")
    parser.add_argument("--user", help="login name")
    parser.add_argument("--user-name", help="the user's display name")
    parser.add_argument("--password-file", help="the user's password (first line)")
    parser.add_argument("--patient", help="the user's patient (Today is /patients/PATIENT/today)")
    parser.add_argument("--patient-name", help="the patient's name, shown on Today")
    parser.add_argument("--record-day", help="overview-keyboard: also open the record, go to this day (the day "
                        "before today) and acknowledge an alert")
    parser.add_argument("--other", help="a patient the user is not linked to")
    parser.add_argument("--other-name", help="that patient's name, which no refusal may show")
    parser.add_argument("--task", help="the task whose event the scenario works on")
    parser.add_argument("--day", help="the day to open (YYYY-MM-DD)")
    parser.add_argument("--value", help="the answer to type")
    parser.add_argument("--expect", help="text the event's state (or the typed reading's row) must come to contain")
    parser.add_argument("--zone", help="zone: the IANA zone to choose on the settings page")
    parser.add_argument("--before", help="zone: text the task's state shows before the zone changes")
    parser.add_argument("--reason", help="release: why the quarantined reading is accepted")
    parser.add_argument("--path", help="axe: the page to check")
    parser.add_argument("--state", action="append", default=[], metavar="TASK=TEXT",
                        help="axe: the task's event must show TEXT (repeatable)")
    parser.add_argument("--present", action="append", default=[], metavar="SELECTOR",
                        help="axe: an element the page must show (CSS selector); overview: text it must show")
    parser.add_argument("--sizes", default="phone,desktop", help="axe: window sizes (phone, desktop)")
    parser.add_argument("--screenshot-dir", help="axe: save a full-page PNG per size here")
    parser.add_argument("--screenshot-name", default="page", help="axe: the PNGs are NAME-SIZE.png")
    parser.add_argument("--order", help="overview: the patients' ids in the order listed (comma-separated)")
    parser.add_argument("--refused", action="append", default=[], metavar="PATIENT",
                        help="overview-forbidden: a patient whose page must be refused (repeatable)")
    parser.add_argument("--secret", action="append", default=[], metavar="TEXT",
                        help="overview-forbidden: text no page of the user may show (repeatable)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds any one wait may take")
    parser.epilog = "After --: the command a scenario runs while the page is open (live, revoked)."
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.command = argv[split + 1:]
    if args.scenario == "probe":
        return probe()
    if probe() != 0:
        return NOT_INSTALLED
    browser = Browser(args.url, args.timeout)
    try:
        SCENARIOS[args.scenario](browser, args)
    except Failure as failure:
        print(f"FAIL: {args.scenario}: {failure}", file=sys.stderr)
        return 1
    finally:
        browser.quit()
    print(f"ok: {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
