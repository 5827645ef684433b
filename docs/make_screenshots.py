"""Makes docs/images/viewer.png, the picture of the interactive viewer in README.md and docs/passes.md.

Traces a 12-block transformer written with nn.Modules (tests/models.py), writes its viewer page, opens it in
headless chromium through selenium (Debian's chromium and chromium-driver, as the browser test), opens
``layers.1.attn``, searches ``flash_attention`` (the closed attention calls show their matches) and selects the
attention kernel of block 1, and saves the screenshot. Run from the repository root: ``python docs/make_screenshots.py``. No torch counterpart.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import dispatcher as D  # noqa: E402
import passes  # noqa: E402
from tests.models import gpt, gpt_input  # noqa: E402
from tracer import make_fx  # noqa: E402


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    model = gpt(D, 12)
    gm = make_fx(model)(gpt_input(D))
    page = os.path.join(tempfile.mkdtemp(), "gpt.html")
    passes.view(gm, titles=["GPT, 12 blocks (post-dispatch, 770 nodes)"]).save(page)
    options = Options()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,820"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)
    try:
        driver.get("file://" + page)
        while driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") != "1":
            time.sleep(0.05)

        def click(selector: str) -> None:
            element = driver.find_element(By.CSS_SELECTOR, selector)
            driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)

        click('g.dk-unit[data-scope="layers.1.attn"]')
        driver.find_element(By.ID, "dk-search").send_keys("flash_attention")
        click('g.dk-unit[data-name="_scaled_dot_product_flash_attention_for_cpu_1"]')
        driver.execute_script("var p = window.dkViewer.panes[0]; p.k = 0.62; p.center(arguments[0])",
                              [n.name for n in gm.graph.nodes].index("_scaled_dot_product_flash_attention_for_cpu_1"))
        out = os.path.join(ROOT, "docs", "images", "viewer.png")
        driver.save_screenshot(out)
        print(f"wrote {out}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
