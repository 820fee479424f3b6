"""The table page in a real browser: headless Chromium (the Debian ``chromium`` and
``chromium-driver`` packages) driven by Selenium creates a table, sits with three bots, plays
cards and sees them on the table, passes, asks for hints, and finishes a deal; screenshots at
desktop and phone width go to ``$SK_SCREENSHOTS`` (default: the test's temporary folder)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require

require(module="selenium")
require(program="chromedriver", apt="chromium chromium-driver")
require(program="chromium", apt="chromium chromium-driver")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from tests.server_harness import db_url, free_port, start_serve  # noqa: E402

DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def browser() -> Any:
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--lang=zh-CN", "--window-size=1280,800"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_script_timeout(10)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(cond: Any, timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.03)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_person_plays_a_deal_in_the_browser(tmp_path, browser):
    shots = Path(os.environ.get("SK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = start_serve(db_url(tmp_path), port, bot_delay=0.3)
    try:
        d = browser
        d.get(f"http://127.0.0.1:{port}/")
        assert d.find_element(By.ID, "create-btn").text == "与三个机器人开局"
        d.find_element(By.ID, "create-btn").click()
        _wait(lambda: d.execute_script("return state !== null"), what="the welcome")
        assert d.find_element(By.ID, "play").text == "出牌"
        assert d.find_element(By.ID, "status").text.startswith("百变")  # the preset, in Chinese
        hand = d.find_elements(By.CSS_SELECTOR, "#hand .card")
        assert len(hand) == 27
        ranks = d.execute_script("return state.hand.slice().sort(cardOrder).map(rankOf)")
        assert ranks == sorted(ranks)  # the hand is shown sorted
        seen_mine_on_table = False
        passed = hinted = 0
        moves = 0
        while not d.execute_script("return state.is_over"):
            if not d.find_element(By.ID, "play").is_enabled():
                time.sleep(0.03)
                continue
            seq = d.execute_script("return state.seq")
            d.find_element(By.ID, "hint").click()
            hinted += 1
            _wait(lambda: d.find_element(By.ID, "message").text, what="the hint")
            chosen = d.execute_script("return [...selected]")
            if chosen:
                d.find_element(By.ID, "play").click()
            else:
                d.find_element(By.ID, "pass").click()
                passed += 1
            _wait(lambda s=seq: d.execute_script("return state.seq") > s, what="the update")
            moves += 1
            if chosen and not seen_mine_on_table:
                board = d.execute_script(
                    "return [...document.querySelectorAll('#board-cards .card')]"
                    ".map(e => Number(e.dataset.id))")
                if sorted(board) == sorted(chosen):
                    seen_mine_on_table = True
                    assert "张)" in d.find_element(By.ID, "board-text").text  # R2 kind, zh
                    d.save_screenshot(str(shots / "table-desktop-playing.png"))
            if moves == 3:
                d.set_window_size(390, 844)  # phone width
                time.sleep(0.2)
                d.save_screenshot(str(shots / "table-phone-playing.png"))
                width = d.execute_script("return document.documentElement.scrollWidth")
                assert width <= 390, "the page must not scroll sideways at phone width"
                d.set_window_size(1280, 800)
        assert seen_mine_on_table and moves >= 1
        _wait(lambda: d.find_element(By.ID, "result").is_displayed(), what="the result")
        summary = d.find_element(By.ID, "result-summary").text
        assert any(w in summary for w in ("双扣", "单扣", "平扣"))
        assert "multiplier" in d.find_element(By.ID, "result-breakdown").text
        assert "single win" not in summary and "double win" not in summary  # zh only
        assert not d.find_element(By.ID, "actions").is_displayed()  # the match is over
        d.save_screenshot(str(shots / "table-desktop-result.png"))
        d.find_element(By.ID, "lang").click()
        assert d.find_element(By.ID, "lang").text == "中文"
        assert "Match over" in d.find_element(By.ID, "status").text
        assert any(w in d.find_element(By.ID, "result-summary").text
                   for w in ("double win", "single win", "tie"))
        d.set_window_size(390, 844)
        time.sleep(0.2)
        d.save_screenshot(str(shots / "table-phone-result-en.png"))
    finally:
        proc.terminate()
        proc.wait(10)
