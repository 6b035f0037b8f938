#!/usr/bin/python3
"""A real browser against the web remote (issue 25): headless Chromium (Debian's chromium and
chromium-driver, driven by python3-selenium) pairs with a fresh code, sees the Now Playing title,
presses pause and sees the host pause, then sees a change the host makes arrive. Every wait has a
deadline. As root Chromium needs --no-sandbox.

    scripts/remote-browser.py SOCKET [SCREENSHOT.png] [CONFIG]

With CONFIG (the daemon's config, its [remote] on a fixed port, with `max_connections = 8`), it also
drops the page's socket (a reload that restarts the remote, like a network that goes and comes
back) and checks the page is live again within 1 s of the server being back, with no reload loop.
"""
import os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ph_client import Client  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

rpc = Client(sys.argv[1])
shot = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
config = sys.argv[3] if len(sys.argv) > 3 else None
url = rpc.call("remote.pair", {"name": "chromium"})["url"]

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=420,860",
          "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(a)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
ok = False
try:
    driver.get(url)  # pairs, and the 303 lands on the page
    wait = WebDriverWait(driver, 15, poll_frequency=0.05)
    wait.until(lambda d: d.find_element(By.ID, "title").text == "Magnificent")
    print("page shows the title")
    # Loopback is a secure context: the service worker registers (the page is installable).
    wait.until(lambda d: d.execute_script("return navigator.serviceWorker.controller !== null || "
                                          "(window.__sw = window.__sw || navigator.serviceWorker.getRegistration('/').then(r => window.__swok = !!r), window.__swok === true)"))
    print("service worker registered")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing")
    driver.find_element(By.ID, "playpause").click()
    start = time.monotonic()
    deadline = start + 10
    while rpc.call("nowPlaying.get").get("playbackState") != "paused":
        if time.monotonic() > deadline:
            raise SystemExit("the host did not pause within 10 s")
        time.sleep(0.02)
    print(f"host paused {1000 * (time.monotonic() - start):.0f} ms after the click")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "paused")
    print("page shows paused")
    # A change the host makes (play from the control socket) reaches the page.
    rpc.call("command.send", {"command": "play", "session": "main"})
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing")
    print("page shows the host's change")
    if config:
        with open(config) as f:
            text = f.read()
        with open(config, "w") as f:
            f.write(text.replace("max_connections = 8", "max_connections = 9"))
        conn = lambda d: d.find_element(By.ID, "connection").text
        rpc.call("host.reload")
        WebDriverWait(driver, 5, poll_frequency=0.01).until(lambda d: conn(d) != "connected")
        down = time.monotonic()
        while not rpc.call("remote.status").get("listening"):
            if time.monotonic() - down > 5:
                raise SystemExit("the remote did not come back after the reload")
            time.sleep(0.01)
        back = time.monotonic()
        WebDriverWait(driver, 5, poll_frequency=0.01).until(lambda d: conn(d) == "connected")
        resumed = time.monotonic() - back
        print(f"page live again {1000 * resumed:.0f} ms after the server was back")
        if resumed > 1.0:
            raise SystemExit("the page took more than 1 s to come back")
        rpc.call("command.send", {"command": "pause", "session": "main"})
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "paused")
        print("a change arrives after the reconnect")
    if shot:
        driver.save_screenshot(shot)
    ok = True
except Exception as e:
    print(f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    print("page:", driver.page_source[:600])
    for entry in driver.get_log("browser")[-10:]:
        print("console:", entry)
finally:
    driver.quit()
sys.exit(0 if ok else 1)
