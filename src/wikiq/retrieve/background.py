"""This vault's floor for "covered": what questions it cannot answer score here.

The coverage model (coverage.py) reads shares and ratios meant to mean the same on every vault,
and mostly they do. A vault of encyclopedia passages is the exception: it holds most everyday
words, so a general-knowledge question ("What is the longest river in South America?") finds a
page holding most of them and rates as well as a question about the vault's own subject. So
each vault measures its own background: forty everyday questions per language, about cooking,
weather, chores and trivia that no wiki written for a subject answers, are scored on it the
first time a question needs it, and a question must score above what most of them reach
(QUANTILE) to count as covered. On a focused wiki they score next to nothing and the floor stays
the model's own cut; on an encyclopedic one it rises. Kept in the vault's cache folder, keyed by
what the scores depend on; a vault that grows or shrinks by a fifth measures it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

# A question scoring below this share of the everyday questions' scores on this vault is not
# covered (unless a rule keeps it: another language, Stage 0, a clause a page answers). Over
# the dev and fresh natural sets, bench/abstain, its held-out files and the older sets
# (docs/BENCHMARKS.md, "A vault's own background"): at 0.5 / 0.6 / 0.75, answerable questions
# newly refused 1 / 1 / 8 (of ~2,000), uncovered ones newly caught 22 / 29 / 44.
QUANTILE = 0.6
# Never above this: a question the model rates this sure of is covered whatever the vault.
FLOOR_MAX = 0.8
VERSION = 1  # of the questions below and the way the floor is read from their scores

QUESTIONS: dict[str, tuple[str, ...]] = {
    "en": (
        "How do I remove a red wine stain from a carpet?",
        "What is the capital of Australia?",
        "How long should I boil an egg for a soft yolk?",
        "Why do cats purr?",
        "How do I reset my Wi-Fi router?",
        "What is the best way to store fresh basil?",
        "How many players are on a rugby union team?",
        "When is the best time to plant tulip bulbs?",
        "How do I jump-start a car battery?",
        "What does a mortgage broker do?",
        "How do solar panels work?",
        "How do I knit a scarf as a beginner?",
        "Why do leaves change color in autumn?",
        "How much water should an adult drink each day?",
        "How does castling work in chess?",
        "How do I write a cover letter?",
        "What causes hiccups?",
        "How do I descale a kettle?",
        "What is the difference between baking soda and baking powder?",
        "How far is the Moon from Earth?",
        "How do I fix a squeaky door hinge?",
        "What is a good stretching routine after running?",
        "How do hurricanes form?",
        "What should I pack for a beach holiday?",
        "How do I make a sourdough starter?",
        "What is the offside rule in soccer?",
        "How do I clean a cast iron pan?",
        "Why do we yawn?",
        "How do I renew my passport?",
        "What are the main causes of inflation?",
        "How do I grow strawberries on a balcony?",
        "How do I remove rust from a bike chain?",
        "Which vitamins are in oranges?",
        "How do I paint a wall without streaks?",
        "What is the tallest building in Europe?",
        "How do I stop my glasses from fogging up?",
        "Why is the ocean salty?",
        "How do I make pancakes without eggs?",
        "How do I teach a dog to sit?",
        "What is the best way to fall asleep quickly?",
    ),
    "zh": (
        "怎么去除衣服上的咖啡渍？",
        "新西兰的首都是哪里？",
        "鸡蛋煮几分钟是溏心的？",
        "猫为什么会打呼噜？",
        "路由器怎么恢复出厂设置？",
        "罗勒叶怎么保存？",
        "一支足球队上场几个人？",
        "郁金香什么时候种？",
        "汽车电瓶没电了怎么搭电？",
        "房贷提前还款划算吗？",
        "太阳能电池板是怎么发电的？",
        "怎么织一条围巾？",
        "秋天树叶为什么会变黄？",
        "成年人每天喝多少水合适？",
        "象棋里马怎么走？",
        "求职信怎么写？",
        "打嗝怎么止住？",
        "水壶里的水垢怎么去除？",
        "小苏打和泡打粉有什么区别？",
        "月球离地球有多远？",
        "门轴吱吱响怎么办？",
        "跑步后怎么拉伸？",
        "台风是怎么形成的？",
        "去海边度假要带什么？",
        "酸奶怎么在家自制？",
        "篮球走步怎么判罚？",
        "铸铁锅怎么开锅？",
        "人为什么会打哈欠？",
        "身份证丢了怎么补办？",
        "通货膨胀是怎么造成的？",
        "阳台上怎么种草莓？",
        "自行车链条生锈怎么处理？",
        "橙子里有哪些维生素？",
        "刷墙怎么刷得均匀？",
        "上海中心大厦有多高？",
        "戴口罩时眼镜起雾怎么办？",
        "海水为什么是咸的？",
        "没有鸡蛋怎么做松饼？",
        "怎么训练狗狗坐下？",
        "失眠了怎么快速入睡？",
    ),
}


def floor_of(scores: list[float], cut: float) -> float:
    """The floor read from the everyday questions' scores: their QUANTILE, at least the
    model's own `cut`, at most FLOOR_MAX."""
    if not scores:
        return cut
    value = float(np.quantile(np.asarray(scores), QUANTILE, method="lower"))
    return min(max(value, cut), max(FLOOR_MAX, cut))


def size_bucket(pages: int) -> int:
    """Vault sizes within about a fifth of each other share a bucket (a floor measured on one
    holds for the other: edits move it far less than that)."""
    return round(4 * math.log2(max(pages, 1)))


def cached_floor(
    language: str,
    score: Callable[[str], float],
    cut: float,
    folder: Path | None,
    key: list[object],
) -> float:
    """This vault's floor for questions in `language` ("en" or "zh"; any other: `cut`), read
    from `folder` when it was measured under the same `key`, else measured with `score` (the
    coverage model's probability for a question on this vault) and kept there."""
    questions = QUESTIONS.get(language)
    if questions is None:
        return cut
    digest = hashlib.sha1(json.dumps([VERSION, language, key], default=str).encode()).hexdigest()
    path = folder / f"background-{language}-{digest[:16]}.json" if folder is not None else None
    if path is not None:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return floor_of([float(s) for s in stored["scores"]], cut)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not measured yet, or damaged: measured again
    scores = [score(q) for q in questions]
    if path is not None:
        with contextlib.suppress(OSError):  # an unwritable cache: measured again next time
            for old in path.parent.glob(f"background-{language}-*.json"):
                old.unlink(missing_ok=True)  # measured under another key
            path.write_text(json.dumps({"scores": scores}), encoding="utf-8")
    return floor_of(scores, cut)
