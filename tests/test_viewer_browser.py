"""The interactive viewer (passes/viewer.py, viewer.js) in a real browser: Debian's chromium, headless, via selenium.

Loads the page of a 12-block transformer, opens and closes a module group, searches, reads a node's details
from the DOM, pans and zooms, follows a link from a pre-dispatch node to its post-dispatch matches, checks
that a hostile stack trace stays text, and saves a screenshot to ``test-artifacts/viewer.png`` (gitignored).
Skips with the reason when chromium, chromedriver or selenium is missing (``make test`` installs them as root).
"""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

import pytest

import dispatcher as D
import passes
from tests.models import gpt, gpt_input
from tracer import make_fx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTIFACTS = os.path.join(ROOT, "test-artifacts")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = [
    pytest.mark.skipif(not HAVE_SELENIUM, reason="selenium is not installed (pip install -e .[test])"),
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="chromium / chromedriver not installed (apt-get install chromium chromium-driver; "
                              "`make test` does it when run as root)"),
]


@pytest.fixture(scope="module")
def browser() -> Any:
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def load(driver: Any, viewer: Any, path: str) -> None:
    viewer.save(path)
    driver.get("file://" + path)
    for _ in range(100):
        if driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1":
            return
        time.sleep(0.05)
    raise AssertionError("the viewer page did not finish loading: " + str(driver.get_log("browser")))


def units(driver: Any, **attrs: str) -> list[Any]:
    sel = "g.dk-unit" + "".join(f'[data-{k}="{v}"]' for k, v in attrs.items())
    return driver.find_elements(By.CSS_SELECTOR, sel)


def click(driver: Any, element: Any) -> None:
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)


def test_big_model_open_close_search_details_pan_zoom(browser: Any, tmp_path: Any) -> None:
    gm = make_fx(gpt(D, 12))(gpt_input(D))
    load(browser, passes.view(gm), str(tmp_path / "gpt.html"))
    assert browser.title.startswith("GPT")
    # closed by default: each block's four calls are one box each, named by path
    start = len(units(browser))
    assert 50 <= start <= 130, start
    assert len(units(browser, scope="layers.3.attn")) == 1
    assert not units(browser, name="addmm_13")
    # open a group: its nodes appear inside a frame titled by the call; close it from the frame's title
    click(browser, units(browser, scope="layers.3.attn")[0])
    assert not units(browser, scope="layers.3.attn")
    opened = len(units(browser))
    assert opened > start + 10  # its own ops, and its four Linear calls closed
    frame = browser.find_element(By.CSS_SELECTOR, 'g.dk-cluster[data-scope="layers.3.attn"] .dk-cluster-title')
    assert frame.get_attribute("textContent").endswith("layers.3.attn (Attention)")
    click(browser, frame)
    assert len(units(browser)) == start and len(units(browser, scope="layers.3.attn")) == 1
    # search: 12 attention kernels, counted in the closed groups; Enter opens the first one's groups
    box = browser.find_element(By.ID, "dk-search")
    box.send_keys("flash_attention")
    assert browser.find_element(By.ID, "dk-count").text == "12 matches"
    badges = browser.find_elements(By.CSS_SELECTOR, "g.dk-unit.dk-match .dk-badge")
    assert len(badges) == 12 and {b.get_attribute("textContent") for b in badges} == {"1 match"}
    box.send_keys(Keys.ENTER)
    assert browser.find_element(By.ID, "dk-count").text == "1 of 12"
    selected = browser.find_elements(By.CSS_SELECTOR, "g.dk-unit.dk-selected")
    assert len(selected) == 1 and selected[0].get_attribute("data-name") == "_scaled_dot_product_flash_attention_for_cpu"
    details = browser.find_element(By.ID, "dk-details").text
    assert "aten._scaled_dot_product_flash_attention_for_cpu.default" in details
    assert "layers.0.attn" in details and "f32[2, 4, 8, 8]" in details
    assert "Attention.forward" in details and "tests/models.py" in details  # user function and stack trace
    # click a node: its details
    click(browser, units(browser, name="arg0_1")[0])
    details = browser.find_element(By.ID, "dk-details").text
    assert details.startswith("arg0_1") and "placeholder" in details and "f32[2, 8, 32]" in details
    # pan and zoom change the viewport's transform
    viewport = browser.find_element(By.CSS_SELECTOR, ".dk-viewport")
    before = viewport.get_attribute("transform")
    canvas = browser.find_element(By.CSS_SELECTOR, "svg.dk-canvas")
    ActionChains(browser).move_to_element_with_offset(canvas, 10, 10).click_and_hold().move_by_offset(120, 60) \
        .release().perform()
    panned = viewport.get_attribute("transform")
    assert panned != before
    browser.find_element(By.XPATH, "//button[@title='zoom in']").click()
    assert "scale(" in viewport.get_attribute("transform") and viewport.get_attribute("transform") != panned
    os.makedirs(ARTIFACTS, exist_ok=True)
    browser.find_element(By.XPATH, "//button[@title='close every module group']").click()
    browser.find_element(By.XPATH, "//button[@title='open every module group']").click()
    assert len(units(browser)) > 700
    browser.find_element(By.XPATH, "//button[@title='close every module group']").click()
    assert len(units(browser)) < 10
    load(browser, passes.view(gm), str(tmp_path / "gpt.html"))
    click(browser, units(browser, scope="layers.0.attn")[0])
    click(browser, units(browser, scope="layers.0.attn.q")[0])
    browser.find_element(By.ID, "dk-search").send_keys("addmm")
    click(browser, units(browser, name="_scaled_dot_product_flash_attention_for_cpu")[0])
    assert browser.save_screenshot(os.path.join(ARTIFACTS, "viewer.png"))


def test_two_graphs_side_by_side_link_matching_nodes(browser: Any, tmp_path: Any) -> None:
    import dispatcher.nn.functional as F

    def f(x, w, b):
        return F.layer_norm(F.linear(x, w, b).relu(), (4,))

    args = (D.randn(2, 3), D.randn(4, 3), D.randn(4))
    pre = make_fx(f, pre_dispatch=True)(*args)
    post = make_fx(f)(*args)
    load(browser, passes.view([pre, post], titles=["pre", "post"]), str(tmp_path / "two.html"))
    panes = browser.find_elements(By.CSS_SELECTOR, ".dk-pane")
    assert [p.find_element(By.CSS_SELECTOR, ".dk-pane-title").text.split(" ")[0] for p in panes] == ["pre", "post"]
    click(browser, panes[0].find_element(By.CSS_SELECTOR, 'g.dk-unit[data-name="linear"]'))
    linked = {e.get_attribute("data-name") for e in panes[1].find_elements(By.CSS_SELECTOR, "g.dk-unit.dk-linked")}
    assert linked == {"t", "addmm"}
    assert "matches in post" in browser.find_element(By.ID, "dk-details").text
    # the other way: post's native_layer_norm links back to pre's layer_norm
    click(browser, panes[1].find_element(By.CSS_SELECTOR, 'g.dk-unit[data-name="native_layer_norm"]'))
    linked = {e.get_attribute("data-name") for e in panes[0].find_elements(By.CSS_SELECTOR, "g.dk-unit.dk-linked")}
    assert linked == {"layer_norm"}


def test_hostile_strings_stay_text(browser: Any, tmp_path: Any) -> None:
    gm = make_fx(lambda x: x.relu())(D.randn(2))
    relu = next(n for n in gm.graph.nodes if n.name == "relu")
    relu.meta["stack_trace"] = '</script><img src=x onerror="window.pwned=1"> & <b>bold</b>'
    load(browser, passes.view(gm), str(tmp_path / "hostile.html"))
    click(browser, units(browser, name="relu")[0])
    assert browser.execute_script("return window.pwned === undefined")
    assert not browser.find_elements(By.CSS_SELECTOR, "#dk-details img, #dk-details b")
    assert '<img src=x onerror="window.pwned=1"> & <b>bold</b>' in browser.find_element(By.ID, "dk-details").text
