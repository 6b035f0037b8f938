#!/usr/bin/python3
"""A real browser against the web remote (issue 25): headless Chromium (Debian's chromium and
chromium-driver, driven by python3-selenium) pairs with a fresh code, sees the Now Playing title,
presses pause and sees the host pause, then sees a change the host makes arrive; sets the rate
and the volume and sees the host take them, sees the host's volume move the slider, and turns the
lock-screen switch on (Media Session metadata, the silent loop playing) and off. Every wait has a
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
    # Rate and volume: the page's controls reach the host, which publishes them back.
    def np_field(get, want, what):
        deadline = time.monotonic() + 10
        while get(rpc.call("nowPlaying.get")) != want:
            if time.monotonic() > deadline:
                raise SystemExit(f"the host's {what} did not become {want} within 10 s")
            time.sleep(0.02)
    def set_control(element_id, value):
        driver.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                              "e.dispatchEvent(new Event('change'))", element_id, value)
    set_control("rate", "1.5")
    np_field(lambda n: n["info"].get("rate"), 1.5, "rate")
    print("rate 1.5 reached the host")
    set_control("volume", "0.4")
    np_field(lambda n: n.get("volume"), 0.4, "volume")
    print("volume 0.4 reached the host")
    # A change of volume from the host moves the page's slider.
    rpc.call("command.send", {"command": "changeVolume", "session": "main", "volume": 0.7})
    wait.until(lambda d: d.find_element(By.ID, "volume").get_attribute("value") == "0.7")
    print("the host's volume reached the page")
    # Promote: offered only for a session that can become active and is not. The second session
    # (pip) is paused with no active audio session: no button. Once it plays it takes the host's
    # Now Playing, and main (still playing, no longer active) gets a Promote that brings it back.
    # The list is drawn anew on every state: read and click it in one script, never through a
    # stale element.
    promotable = lambda d: d.execute_script(
        "return [...document.querySelectorAll('#sessions li')].filter(li => li.querySelector('button'))"
        ".map(li => li.querySelector('span').textContent.split(' ')[0])")
    wait.until(lambda d: d.execute_script("return document.querySelectorAll('#sessions li').length") == 2)
    if promotable(driver):
        raise SystemExit(f"a Promote is offered for a session that cannot become active: {promotable(driver)}")
    print("no Promote for a session that cannot become active")
    rpc.call("command.send", {"command": "play", "session": "pip"})
    wait.until(lambda d: d.find_element(By.ID, "title").text == "Second")
    wait.until(lambda d: "main" in promotable(d))
    driver.execute_script("[...document.querySelectorAll('#sessions li')].find(li => li.querySelector('span')"
                          ".textContent.startsWith('main ')).querySelector('button').click()")
    np_field(lambda n: n.get("session"), "main", "Now Playing session")
    wait.until(lambda d: d.find_element(By.ID, "title").text == "Magnificent")
    print("promoted from the page: the host's Now Playing is main again")
    rpc.call("command.send", {"command": "pause", "session": "pip"})
    # The lock-screen switch: off by default (no metadata); on, the Media Session shows the
    # title and the silent loop plays (what keeps a phone's lock screen showing it).
    assert driver.execute_script("return navigator.mediaSession.metadata") is None
    driver.find_element(By.ID, "lockscreen").click()
    wait.until(lambda d: d.execute_script("const m = navigator.mediaSession.metadata; return m ? m.title : null") == "Magnificent")
    wait.until(lambda d: d.execute_script("return !document.getElementById('silence').paused"))
    print("lock screen shows the title and the silent loop plays")
    driver.find_element(By.ID, "lockscreen").click()
    wait.until(lambda d: d.execute_script("return navigator.mediaSession.metadata") is None)
    print("lock screen off again")
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
