"""Generate a large, realistic LLM-Wiki vault for benchmarks (deterministic for a given seed).

    python bench/make_vault.py /tmp/vault100k --pages 100000 --seed 0

Writes `OUT/wiki/index.md` in the plugin's line format, `OUT/wiki/{entities,concepts,sources}/`
pages with frontmatter (type, aliases, sources, tags; a few stubs and a few pages with broken
YAML), 1–4 KB bodies of varied English text (about 10% Chinese), Zipf-distributed `[[links]]`
(about 8 per page, some hubs), plus `OUT/questions.jsonl`: questions made from page titles and
body sentences (gold = that page) for `bench/retrieval_speed.py`.

Output goes under /tmp or bench/out/ (git-ignored), never into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np


def _words(text: str) -> list[str]:
    """A word list written as one string (easier to read and edit than a column of quotes)."""
    return text.split()


# --- word banks ---------------------------------------------------------------------------
# domain tag -> (nouns, adjectives). Nouns take a plain "s" plural in the templates.
DOMAINS: dict[str, tuple[list[str], list[str]]] = {
    "astronomy": (
        _words(
            "comet orbit nebula telescope eclipse quasar spectrum galaxy asteroid pulsar "
            "meteor crater parallax redshift supernova satellite moon planet star observatory"
        ),
        _words("luminous distant stellar orbital faint eccentric binary radiant"),
    ),
    "cardiology": (
        _words(
            "artery valve ventricle rhythm stent catheter murmur infarct pacemaker atrium "
            "echocardiogram aneurysm statin beta-blocker angiogram clot embolism ablation"
        ),
        _words("cardiac coronary acute chronic ischemic arrhythmic systolic diastolic"),
    ),
    "databases": (
        _words(
            "index query transaction table schema cursor replica shard partition join buffer "
            "optimizer tuple page lock snapshot log checkpoint cache planner column"
        ),
        _words("relational distributed columnar durable concurrent vectorized serializable sparse"),
    ),
    "machine-learning": (
        _words(
            "model gradient embedding tokenizer dataset benchmark classifier layer optimizer "
            "checkpoint kernel sampler feature label regularizer encoder decoder transformer"
        ),
        _words(
            "supervised stochastic convolutional recurrent sparse robust adversarial probabilistic"
        ),
    ),
    "medieval-history": (
        _words(
            "abbey charter manor knight siege guild pilgrimage crusade chronicle monastery "
            "castle bishop tithe fief serf relic cathedral tournament treaty dynasty"
        ),
        _words("feudal ecclesiastical royal monastic Norman Carolingian baronial Byzantine"),
    ),
    "botany": (
        _words(
            "orchid fern seedling pollen root petal stamen rhizome leaf spore conifer bulb "
            "hybrid cultivar herbarium graft tuber moss lichen shrub"
        ),
        _words("perennial deciduous evergreen alpine tropical epiphytic aromatic hardy"),
    ),
    "marine-biology": (
        _words(
            "reef plankton kelp whale coral estuary lagoon krill mollusc sponge tide trench "
            "dolphin seagrass squid urchin current shoal anemone eel"
        ),
        _words("pelagic benthic coastal saline migratory bioluminescent abyssal intertidal"),
    ),
    "railways": (
        _words(
            "locomotive signal gauge junction timetable viaduct tunnel carriage depot platform "
            "siding freight sleeper turntable tramway branch line terminus bogie"
        ),
        _words("narrow electrified suburban express regional elevated steam diesel"),
    ),
    "cooking": (
        _words(
            "broth sauce dough spice ferment pickle roast braise marinade custard pastry stock "
            "noodle dumpling glaze reduction brine skillet oven recipe"
        ),
        _words("savory smoked crisp tender spicy fermented caramelized seasonal"),
    ),
    "jazz": (
        _words(
            "quartet chord solo riff standard session ballad groove trumpet saxophone bassline "
            "drummer improvisation label album bebop swing arrangement club rhythm"
        ),
        _words("modal syncopated smoky cool bluesy virtuosic improvised acoustic"),
    ),
    "geology": (
        _words(
            "fault basalt sediment stratum mineral glacier quarry granite fossil magma outcrop "
            "aquifer moraine shale erosion plate crust limestone quartz delta"
        ),
        _words("volcanic tectonic sedimentary metamorphic glacial porous crystalline Jurassic"),
    ),
    "urban-planning": (
        _words(
            "district zoning boulevard tram housing park transit plaza suburb corridor bridge "
            "waterfront density permit neighborhood grid market harbor block"
        ),
        _words("municipal mixed-use walkable dense historic industrial pedestrian civic"),
    ),
    "economics": (
        _words(
            "tariff inflation wage subsidy bond market currency deficit export loan monopoly "
            "recession budget dividend pension ledger auction price rent tax"
        ),
        _words("fiscal monetary speculative inflationary agrarian mercantile cyclical fiscal"),
    ),
    "linguistics": (
        _words(
            "dialect vowel grammar lexicon phoneme syntax morpheme script loanword idiom "
            "inscription corpus accent tense declension glossary verb noun suffix prefix"
        ),
        _words("phonetic tonal inflected archaic colloquial regional written oral"),
    ),
    "ornithology": (
        _words(
            "warbler heron plumage nest migration falcon owl egg songbird wetland feather "
            "flock gull sparrow raptor hummingbird wren beak clutch roost"
        ),
        _words("migratory nocturnal wading endemic predatory colorful territorial coastal"),
    ),
    "architecture": (
        _words(
            "facade vault arch buttress dome atrium cornice column courtyard gable staircase "
            "pavilion villa tower portico nave cloister beam brick tile"
        ),
        _words("Gothic baroque modernist brutalist vernacular neoclassical timber ornate"),
    ),
    "software": (
        _words(
            "compiler module library runtime scheduler thread socket parser kernel driver "
            "patch release interpreter allocator protocol daemon plugin framework shell bug"
        ),
        _words("asynchronous embedded modular lightweight open-source portable incremental typed"),
    ),
    "agriculture": (
        _words(
            "harvest irrigation orchard vineyard tractor silo fertilizer crop pasture barley "
            "wheat cattle terrace granary plough hedge seed furrow dairy mill"
        ),
        _words("organic arable fertile drought-resistant rotational rural seasonal irrigated"),
    ),
    "music-theory": (
        _words(
            "cadence scale interval harmony motif fugue sonata tempo meter counterpoint "
            "overture chorus score symphony note key octave pitch timbre refrain"
        ),
        _words("chromatic diatonic contrapuntal polyphonic minor major dissonant lyrical"),
    ),
    "climate": (
        _words(
            "monsoon drought glacier aerosol carbon rainfall cyclone forecast ice sheet "
            "heatwave permafrost jetstream humidity anomaly record model station sensor flood"
        ),
        _words("arid humid polar tropical anthropogenic seasonal extreme atmospheric"),
    ),
}

# (3rd-person present, past) — neutral verbs that fit any domain.
VERBS: list[tuple[str, str]] = [
    ("shapes", "shaped"),
    ("describes", "described"),
    ("influences", "influenced"),
    ("connects", "connected"),
    ("replaces", "replaced"),
    ("supports", "supported"),
    ("documents", "documented"),
    ("extends", "extended"),
    ("challenges", "challenged"),
    ("explains", "explained"),
    ("reduces", "reduced"),
    ("measures", "measured"),
    ("combines", "combined"),
    ("preserves", "preserved"),
    ("reveals", "revealed"),
    ("limits", "limited"),
    ("organizes", "organized"),
    ("predicts", "predicted"),
    ("records", "recorded"),
    ("transforms", "transformed"),
]
VERBS_PRESENT = [v for v, _ in VERBS]
VERBS_PAST = [v for _, v in VERBS]
NUMBERS = ["3", "7", "12", "40", "150", "600", "2400"]
GENERAL_NOUNS = _words(
    "history evidence tradition practice theory method structure region period network account "
    "archive debate survey pattern system approach outcome standard movement community "
    "framework decade generation source community principle variation"
)
GENERAL_ADJS = _words(
    "early late important unusual common rare gradual significant modest remarkable uncertain "
    "detailed influential controversial practical widespread local careful"
)
UNITS = ["year", "season", "month", "decade", "week", "day", "cycle", "generation"]

FIRST_NAMES = _words(
    "Ada Alba Alden Amara Anselm Ansel Aria Astrid Bram Brina Callum Cassia Cedric Cora Dagny "
    "Dario Delphine Edda Elio Elsa Emrys Enzo Esme Ettore Fenna Finn Freya Galen Greta Hale "
    "Hana Idris Ilse Imogen Ines Ivo Jonas Juno Kaia Keir Lena Leif Linnea Lorcan Luca Maren "
    "Mateo Mila Nadia Nell Nico Nora Odile Orin Osk Petra Pia Quinn Rafe Rhea Rowan Saskia "
    "Selma Soren Tamsin Teodor Thea Tove Una Vera Viggo Wren Yara Yusuf Zora Agnes Bastian "
    "Clio Dmitri Elodie Faris Gideon Hedda Ismay Jorah Kasimir Livia Magnus Nerys Oskar Perrin "
    "Rosalind Silas Talia Ulric Vesna Wilhelmina Xavi"
)
SYLLABLES_A = _words(
    "al bel cor dar el fen gal hal is jor kel lor mar nor or pel quil ros sel tal ul var wen "
    "yor zel ash bram crest dun fal glen hart kest lind mor"
)
SYLLABLES_B = _words(
    "ara ben by dale don ford gate holm ica ion mere mont moor ora rick ridge rin stead ton "
    "vale ver wick wyn ley more stone"
)
ORG_KINDS = _words(
    "Institute Observatory Society Museum Archive Laboratory Foundation Company Press College "
    "Collective Works Council Library Trust"
)
PLACE_KINDS = ["Port", "Mount", "Lake", "Fort", "Cape", "Glen", "Upper", "Lower", "North", "South"]
SYSTEM_KINDS = [
    "DB",
    "Engine",
    "Toolkit",
    "Project",
    "Protocol",
    "Atlas",
    "Index",
    "Framework",
    "Suite",
]
SOURCE_FORMS = [
    "Field Notes on {c}",
    "{e} Annual Report {y}",
    "A Survey of {c}",
    "Interview with {e}",
    "{c}: A Review",
    "Proceedings of the {e} Meeting {y}",
    "Letters of {e}",
    "Handbook of {c}",
    "{e} Technical Memo {n}",
    "Lecture Notes on {c}",
]

# Chinese banks: (word, English gloss) so a Chinese page can carry an English alias.
ZH_DOMAINS: dict[str, list[tuple[str, str]]] = {
    "历史": [
        ("朝代", "dynasty"),
        ("科举", "imperial examination"),
        ("书院", "academy"),
        ("边塞", "frontier fortress"),
        ("漕运", "grain transport"),
        ("驿站", "post station"),
        ("宗族", "lineage"),
        ("郡县", "commandery"),
        ("史官", "court historian"),
        ("盐政", "salt administration"),
        ("屯田", "military farm"),
        ("城池", "walled city"),
    ],
    "哲学": [
        ("心性", "mind and nature"),
        ("格物", "investigation of things"),
        ("道统", "orthodox transmission"),
        ("名实", "names and reality"),
        ("义理", "moral principle"),
        ("无为", "non-action"),
        ("仁学", "learning of benevolence"),
        ("知行", "knowledge and action"),
        ("气论", "theory of qi"),
        ("齐物", "equality of things"),
        ("逍遥", "free wandering"),
        ("天道", "way of heaven"),
    ],
    "文学": [
        ("诗话", "remarks on poetry"),
        ("词牌", "ci tune pattern"),
        ("骈文", "parallel prose"),
        ("笔记", "notebook literature"),
        ("传奇", "chuanqi tale"),
        ("楚辞", "songs of chu"),
        ("乐府", "music bureau poem"),
        ("评点", "commentary"),
        ("散曲", "sanqu song"),
        ("小说", "fiction"),
        ("文集", "collected works"),
        ("序跋", "prefaces and colophons"),
    ],
    "艺术": [
        ("书法", "calligraphy"),
        ("山水", "landscape painting"),
        ("篆刻", "seal carving"),
        ("瓷器", "porcelain"),
        ("琴谱", "qin score"),
        ("园林", "garden"),
        ("碑帖", "rubbings"),
        ("戏曲", "opera"),
        ("青铜", "bronze ware"),
        ("织锦", "brocade"),
        ("壁画", "mural"),
        ("漆器", "lacquerware"),
    ],
    "医药": [
        ("本草", "materia medica"),
        ("针灸", "acupuncture"),
        ("脉学", "pulse diagnosis"),
        ("方剂", "formula"),
        ("温病", "warm disease"),
        ("经络", "meridian"),
        ("药性", "drug property"),
        ("伤寒", "cold damage"),
        ("养生", "nourishing life"),
        ("医案", "case record"),
        ("炮制", "herb processing"),
        ("痘疹", "smallpox"),
    ],
}
ZH_PERIODS = [
    ("先秦", "pre-qin"),
    ("汉代", "han"),
    ("魏晋", "wei-jin"),
    ("唐代", "tang"),
    ("宋代", "song"),
    ("元代", "yuan"),
    ("明代", "ming"),
    ("清代", "qing"),
    ("江南", "jiangnan"),
    ("岭南", "lingnan"),
    ("北方", "northern"),
    ("近代", "modern"),
]
ZH_SURNAMES = _words(
    "王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗 郑 梁 谢 宋 唐 许 韩 冯 邓 曹 彭 曾 萧 田 董 袁 潘 蒋 蔡 余 杜 叶 程 苏 魏 "
    "吕 丁 任 沈 姚 卢 姜 崔 钟 谭 陆 汪 范 金 石 廖 贾 夏 韦 付 方 白 邹 孟 熊 秦 邱 江 尹 薛 闫 段 雷 侯 龙 史 陶 黎 贺 顾 毛 郝 龚 邵 万 "
    "钱 严 覃 武 戴 莫 孔 向 汤"
)
ZH_GIVEN = list(
    "景澄元方应祥潜在弁勉道汝韶深源子胥伯仲叔季文武德仁义礼智信忠孝廉敬诚和平安康宁静远"
    "思明光华清正永长春秋山川云海松竹梅兰菊鹤鸿鹏志修齐治达通贤良昭彦希宗维绍"
)
ZH_PINYIN = _words(
    "wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo"
)
ZH_VERBS = ["影响", "继承", "批评", "发展", "记载", "整理", "阐释", "改变", "推动", "考证"]
ZH_ADJS = ["重要", "独特", "深远", "复杂", "早期", "系统", "广泛", "细致", "典型", "关键"]
ZH_GENERAL = ["学术", "思想", "制度", "传统", "文献", "风格", "社会", "地方", "观念", "实践"]

EN_TEMPLATES = [
    "{T} is a {a} {n} that {v} the {n} of {L}.",
    "Researchers first described {T} in {y}, noting its {a} {n} and {ga} {g}.",
    "The {n} {vp} by {L} remains one of the most {a} examples of {g} in the field.",
    "According to {L}, a typical {n} {v} roughly {num} {n}s each {unit}.",
    "Critics argue that {T} {v} too little {g} to explain the {a} {n}.",
    "Between {y} and {y2}, the {n} {vp} steadily as the {g} {vp}.",
    "Unlike {L}, {T} {v} a {a} {n} rather than a {n}.",
    "Most accounts place the first {n} near {place}, where {a} {n}s are still common.",
    "A {a} {n} {v} the {g}, although the {g} is {ga}.",
    "It is often compared with {L} because both {vp} {a} {n}s.",
    "The {n} was later {vp} during the {g} of {y}, a change {P} {vp} in detail.",
    "{P} argued that every {n} {v} a {ga} {g}, a view later {vp} by {L}.",
    "In practice, the {n} {v} the {n} only when the {g} is {ga}.",
    "Several {ga} {g}s suggest that {T} {vp} the {a} {n} long before {y}.",
    "The {a} {n} and the {n} together {vp} what most people call the {g}.",
    "Its {n} is {a}, its {n} {ga}, and its {g} still debated.",
    "A {y} survey by {L} counted {num} {a} {n}s across {place}.",
    "Later work on {L} {vp} this {g} and {vp} a {ga} {n}.",
    "Why the {n} {v} the {n} so {adv} is still an open question.",
    "Visitors to {place} can still see a {a} {n} that {vp} the {g} of {y}.",
    "{T} is sometimes confused with {L}, but the {n}s differ in {g}.",
    "The standard reference, {L}, lists {num} kinds of {n}.",
    "Without the {n}, the {a} {g} would have {vp} much earlier.",
    "Some {n}s {vp} the {n} {adv}, while others {vp} it only in {unit}s of {ga} {g}.",
]
# The first sentence of a page says what it is (the index summary is cut from it).
EN_LEADS = {
    "entity": [
        "{T} is a {ga} figure in the study of {a} {n}s, best known for work connected with {L}.",
        "{T} is an organization devoted to the {a} {n}, closely tied to {L}.",
        "{T} is a place known for its {a} {n}s and its links to {L}.",
    ],
    "concept": [
        "{T} is a {a} {n} that {v} the {n} of {L}.",
        "{T} names the {ga} {g} by which a {a} {n} {v} the {n}, as described in {L}.",
    ],
    "source": [
        "{T} is a {ga} {g} of {a} {n}s, written with reference to {L}.",
        "{T} collects {ga} observations on the {n} and the {n}, citing {L}.",
    ],
}
ZH_LEADS = {
    "entity": ["{T}是{p}{a}的学者，以{n}研究闻名，与{L}交往密切。"],
    "concept": ["{T}是{a}的{n}，与{L}有密切关系。"],
    "source": ["{T}是一部关于{p}{n}的{a}文献，多处引用{L}。"],
}
ADVERBS = [
    "quickly",
    "slowly",
    "rarely",
    "often",
    "reliably",
    "unevenly",
    "gradually",
    "sharply",
    "quietly",
]
ZH_TEMPLATES = [
    "{T}是{a}的{n}，与{L}有密切关系。",
    "{y}年前后，{T}{v}了{p}{n}的{g}。",
    "据{L}记载，{T}在{p}时期{v}了{n}与{g}。",
    "学者认为{T}的{n}具有{a}的{g}意义。",
    "{L}曾经{v}{T}的{n}，并提出{a}的见解。",
    "{T}的{g}体现在{n}、{n}与{g}三个方面。",
    "与{L}相比，{T}更注重{n}的{g}。",
    "后世对{T}的评价，主要集中在{a}的{n}上。",
    "{p}的{n}传统深刻{v}了{T}。",
    "关于{T}的{n}问题，{L}给出了{a}的考证。",
]
EN_SECTIONS = {
    "entity": ["Description", "Background", "Key facts", "Legacy"],
    "concept": ["Definition", "Key features", "Applications", "Debates"],
    "source": ["Summary", "Main points", "Method", "Reception"],
}
ZH_SECTIONS = {
    "entity": ["描述", "生平", "主要贡献", "影响"],
    "concept": ["定义", "关键特征", "应用", "争议"],
    "source": ["摘要", "主要观点", "方法", "评价"],
}
TYPE_FOLDERS = {"entity": "entities", "concept": "concepts", "source": "sources"}

# --- shares ---------------------------------------------------------------------------------
TYPE_SHARES = (("entity", 0.45), ("concept", 0.35), ("source", 0.20))
ZH_SHARE = 0.10
STUB_SHARE = 0.005
BROKEN_YAML_SHARE = 0.003
NOT_IN_INDEX_SHARE = 0.002
DEAD_LINK_PAGES = 0.03  # share of pages with one link to a page that does not exist
LOCAL_LINK_SHARE = 0.65  # links to a page of the same domain (the rest: anywhere)
ZIPF_EXPONENT = 1.0
MEAN_BODY_LINKS = 6.5
CHUNK = 1000  # pages per RNG stream and per worker task

_A_AN = re.compile(r"\b([Aa]) ([aeiouAEIOU])")
_SLUG_DROP = re.compile(r"[/\\:*?\"<>|,()'!?、，。；：！？（）【】《》]")


def slugify(title: str) -> str:
    """The plugin's slug: strip unsafe punctuation, spaces and dots to dashes, lowercase."""
    s = _SLUG_DROP.sub("", title)
    s = re.sub(r"[\s.]+", "-", s)
    s = re.sub(r"-{2,}", "-", s).strip("-")
    return s.lower()


@dataclass
class PageSpec:
    type: str
    domain: str
    zh: bool
    title: str
    slug: str
    aliases: list[str]
    links: list[int] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)
    stub: bool = False
    broken_yaml: bool = False
    in_index: bool = True

    @property
    def path(self) -> str:
        return f"{TYPE_FOLDERS[self.type]}/{self.slug}"


# --- names ---------------------------------------------------------------------------------


def _proper(rng: random.Random) -> str:
    name = rng.choice(SYLLABLES_A) + rng.choice(SYLLABLES_B)
    return name.capitalize()


def _en_entity(rng: random.Random, domain: str) -> tuple[str, list[str]]:
    kind = rng.random()
    if kind < 0.5:
        first, last = rng.choice(FIRST_NAMES), _proper(rng)
        if rng.random() < 0.3:
            title = f"{first} {chr(65 + rng.randrange(26))}. {last}"
        else:
            title = f"{first} {last}"
        return title, [f"{first[0]}. {last}", last] if rng.random() < 0.7 else [last]
    if kind < 0.75:
        base = _proper(rng)
        org = rng.choice(ORG_KINDS)
        field_word = rng.choice(DOMAINS[domain][0]).capitalize()
        title = f"{base} {field_word} {org}" if rng.random() < 0.5 else f"{base} {org}"
        acronym = "".join(w[0] for w in title.split()).upper()
        return title, [acronym]
    if kind < 0.9:
        title = f"{rng.choice(PLACE_KINDS)} {_proper(rng)}"
        return title, [title.split()[1]] if rng.random() < 0.5 else []
    title = f"{_proper(rng)} {rng.choice(SYSTEM_KINDS)}"
    return title, [title.replace(" ", "")]


def _en_concept(rng: random.Random, domain: str) -> tuple[str, list[str]]:
    nouns, adjs = DOMAINS[domain]
    words = [rng.choice(adjs), rng.choice(nouns)]
    r = rng.random()
    if r < 0.5:
        words.append(rng.choice(nouns + GENERAL_NOUNS))
    elif r < 0.7:
        words.insert(0, rng.choice(GENERAL_ADJS))
    title = " ".join(w.capitalize() if w.islower() else w for w in words)
    aliases = []
    if rng.random() < 0.4:
        aliases.append("".join(w[0] for w in title.split()).upper())
    if rng.random() < 0.3:
        aliases.append(f"{words[-1]} ({words[0]})")
    return title, aliases


def _en_source(rng: random.Random, domain: str) -> tuple[str, list[str]]:
    form = rng.choice(SOURCE_FORMS)
    c, _ = _en_concept(rng, domain)
    e = _proper(rng)
    title = form.format(c=c, e=e, y=rng.randrange(1850, 2025), n=rng.randrange(1, 400))
    return title, []


def _zh_entity(rng: random.Random) -> tuple[str, list[str]]:
    k = rng.randrange(len(ZH_SURNAMES))
    given = rng.choice(ZH_GIVEN) + (rng.choice(ZH_GIVEN) if rng.random() < 0.8 else "")
    title = ZH_SURNAMES[k] + given
    pinyin = ZH_PINYIN[k % len(ZH_PINYIN)].capitalize()
    aliases = [f"{pinyin} {_proper(rng)}"]
    if rng.random() < 0.4:
        aliases.append(f"{ZH_SURNAMES[k]}{rng.choice(ZH_GIVEN)}")
    return title, aliases


def _zh_concept(rng: random.Random, domain: str) -> tuple[str, list[str]]:
    period, p_en = rng.choice(ZH_PERIODS)
    w1, e1 = rng.choice(ZH_DOMAINS[domain])
    w2, e2 = rng.choice(ZH_DOMAINS[domain])
    if rng.random() < 0.5 or w1 == w2:
        title, alias = period + w1, f"{p_en.capitalize()} {e1}"
    else:
        title, alias = period + w1 + w2, f"{p_en.capitalize()} {e1} and {e2}"
    return title, [alias]


def _zh_source(rng: random.Random, domain: str) -> tuple[str, list[str]]:
    c, _ = _zh_concept(rng, domain)
    form = rng.choice(["{c}研究", "论{c}", "{c}考", "{c}的形成与演变", "读{c}札记"])
    return form.format(c=c), []


def plan_pages(n: int, seed: int) -> list[PageSpec]:
    """Every page's type, domain, language, title, slug and aliases (unique slugs)."""
    rng = random.Random(seed)
    en_domains = list(DOMAINS)
    zh_domains = list(ZH_DOMAINS)
    taken: set[str] = set()
    specs: list[PageSpec] = []
    types = [t for t, _ in TYPE_SHARES]
    weights = [w for _, w in TYPE_SHARES]
    for _ in range(n):
        ptype = rng.choices(types, weights)[0]
        zh = rng.random() < ZH_SHARE
        domain = rng.choice(zh_domains if zh else en_domains)
        for attempt in range(50):
            if zh and ptype == "entity":
                title, aliases = _zh_entity(rng)
            elif zh and ptype == "concept":
                title, aliases = _zh_concept(rng, domain)
            elif zh:
                title, aliases = _zh_source(rng, domain)
            elif ptype == "entity":
                title, aliases = _en_entity(rng, domain)
            elif ptype == "concept":
                title, aliases = _en_concept(rng, domain)
            else:
                title, aliases = _en_source(rng, domain)
            if attempt >= 10:  # the name space is crowded: qualify the title
                title = f"{title} ({_proper(rng)})" if not zh else f"{title}（{_proper(rng)}）"
            slug = slugify(title)
            if slug and slug not in taken:
                break
        else:  # pragma: no cover - 50 attempts always find a free name in practice
            title = f"{title} {len(specs)}"
            slug = slugify(title)
        taken.add(slug)
        specs.append(PageSpec(ptype, domain, zh, title, slug, aliases))
    return specs


# --- links ----------------------------------------------------------------------------------


def _zipf_cdf(size: int) -> np.ndarray:
    w = 1.0 / np.power(np.arange(1, size + 1, dtype=np.float64), ZIPF_EXPONENT)
    c = np.cumsum(w)
    return c / c[-1]


def plan_links(specs: list[PageSpec], seed: int) -> None:
    """Body links (Zipf over a random hub order, mostly within a domain) and `sources:`."""
    rng = np.random.default_rng(seed + 1)
    n = len(specs)
    domains = sorted({s.domain for s in specs})  # sorted: set order varies between runs
    domain_of = np.asarray([domains.index(s.domain) for s in specs], dtype=np.int64)
    is_source = np.asarray([s.type == "source" for s in specs])
    global_order = rng.permutation(n)
    global_cdf = _zipf_cdf(n)
    members = [rng.permutation(np.flatnonzero(domain_of == d)) for d in range(len(domains))]
    sources = [np.flatnonzero((domain_of == d) & is_source) for d in range(len(domains))]

    # Out-degree: over-dispersed around the mean (a few pages link a lot, some barely).
    degrees = rng.negative_binomial(3, 3 / (3 + MEAN_BODY_LINKS), size=n)
    degrees[np.asarray([s.stub for s in specs])] = np.minimum(degrees, 2)[
        np.asarray([s.stub for s in specs])
    ]
    owner = np.repeat(np.arange(n), degrees)
    u = rng.random(len(owner))
    targets = global_order[np.minimum(np.searchsorted(global_cdf, u), n - 1)]
    local = rng.random(len(owner)) < LOCAL_LINK_SHARE
    for d, m in enumerate(members):
        sel = local & (domain_of[owner] == d)
        idx = np.minimum(np.searchsorted(_zipf_cdf(len(m)), u[sel]), len(m) - 1)
        targets[sel] = m[idx]
    bounds = np.concatenate([[0], np.cumsum(degrees)])
    flat = targets.tolist()

    n_sources = rng.integers(1, 4, size=n)
    source_u = rng.random((n, 3))
    for i, spec in enumerate(specs):
        chosen = list(dict.fromkeys(flat[bounds[i] : bounds[i + 1]]))
        spec.links = [j for j in chosen if j != i]
        pool = sources[domain_of[i]]
        if spec.type != "source" and len(pool):
            picks = pool[(source_u[i, : n_sources[i]] * len(pool)).astype(np.int64)]
            spec.sources = sorted({int(p) for p in picks if int(p) != i})


# --- text -----------------------------------------------------------------------------------


def _link_md(rng: random.Random, target: PageSpec) -> str:
    r = rng.random()
    if r < 0.6:
        return f"[[{target.path}|{target.title}]]"
    if r < 0.8:
        return f"[[{target.path}]]"
    if r < 0.92:
        return f"[[{target.slug}|{target.title}]]"
    return f"[[{target.path}#{'Description' if target.type == 'entity' else 'Definition'}|{target.title}]]"


_SLOT = re.compile(r"(\{\w+\})")


@cache
def _parse_template(template: str) -> tuple[tuple[bool, str], ...]:
    """(is_slot, text) parts of a template, parsed once."""
    return tuple(
        (True, part[1:-1]) if part.startswith("{") else (False, part)
        for part in _SLOT.split(template)
        if part
    )


def _pick(r: Callable[[], float], items: Sequence[str]) -> str:
    return items[int(r() * len(items))]


class _Filler:
    """Fills templates for one page; `links` are consumed as {L} slots appear."""

    def __init__(
        self, rng: random.Random, spec: PageSpec, links: list[str], names: list[str]
    ) -> None:
        self.rng = rng
        self.spec = spec
        self.links = links
        self.names = names  # plain (unlinked) titles of linked pages, to vary {L}
        self.k = 0
        r = rng.random
        title = spec.title
        if spec.zh:
            words = [w for w, _ in ZH_DOMAINS[spec.domain]]
            periods = [p for p, _ in ZH_PERIODS]
            self.slots: dict[str, Callable[[], str]] = {
                "T": lambda: title,
                "L": self.link,
                "n": lambda: words[int(len(words) * r() ** 1.6)],
                "a": lambda: _pick(r, ZH_ADJS),
                "g": lambda: _pick(r, ZH_GENERAL),
                "v": lambda: _pick(r, ZH_VERBS),
                "p": lambda: _pick(r, periods),
                "y": lambda: str(600 + int(r() * 1300)),
            }
            return
        nouns, adjs = DOMAINS[spec.domain]
        self.year = 1900

        def year() -> str:
            self.year = 1400 + int(r() * 620)
            return str(self.year)

        self.slots = {
            "T": lambda: title,
            "L": self.link,
            "n": lambda: nouns[int(len(nouns) * r() ** 1.6)],
            "a": lambda: _pick(r, adjs),
            "g": lambda: _pick(r, GENERAL_NOUNS),
            "ga": lambda: _pick(r, GENERAL_ADJS),
            "v": lambda: _pick(r, VERBS_PRESENT),
            "vp": lambda: _pick(r, VERBS_PAST),
            "y": year,
            "y2": lambda: str(self.year + 3 + int(r() * 77)),
            "num": lambda: _pick(r, NUMBERS),
            "unit": lambda: _pick(r, UNITS),
            "place": lambda: (
                f"{_pick(r, PLACE_KINDS)} {_pick(r, SYLLABLES_A).capitalize()}{_pick(r, SYLLABLES_B)}"
            ),
            "P": lambda: (
                f"{_pick(r, FIRST_NAMES)} {_pick(r, SYLLABLES_A).capitalize()}{_pick(r, SYLLABLES_B)}"
            ),
            "adv": lambda: _pick(r, ADVERBS),
        }

    def link(self) -> str:
        if self.k < len(self.links):
            self.k += 1
            return self.links[self.k - 1]
        return _pick(self.rng.random, self.names) if self.names else self.spec.title

    def fill(self, template: str) -> str:
        slots = self.slots
        s = "".join(slots[t]() if is_slot else t for is_slot, t in _parse_template(template))
        return s[0].upper() + s[1:]


def render_page(rng: random.Random, spec: PageSpec, specs: list[PageSpec]) -> tuple[str, str]:
    """(file text, one body sentence to make a question from) of one page."""
    fm = [
        "---",
        f"type: {spec.type}",
        f"created: 20{rng.randrange(24, 27)}-0{rng.randrange(1, 10)}-{rng.randrange(10, 29)}",
    ]
    if spec.sources:
        quoted = ", ".join(f'"[[{specs[j].path}]]"' for j in spec.sources)
        fm.append(f"sources: [{quoted}]")
    else:
        fm.append("sources: []")
    fm.append(f"tags: [{spec.domain}]")
    if spec.aliases:
        if rng.random() < 0.8:
            fm.append("aliases:")
            fm.extend(f'  - "{a}"' for a in spec.aliases)
        else:
            fm.append(f"aliases: {', '.join(spec.aliases)}")
    else:
        fm.append("aliases: []")
    if spec.stub:
        fm.append("generation_complete: false")
    elif rng.random() < 0.05:
        fm.append("reviewed: true")
    if spec.broken_yaml:
        # The kinds of breakage real vaults have: an unclosed flow list, a tab indent.
        fm.append(
            rng.choice(['aliases: ["unclosed, "quote', "tags:\n\t- tabbed", "title: [oops: {"])
        )
    fm.append("---")
    fm.append("")

    zh = spec.zh
    link_md = [_link_md(rng, specs[j]) for j in spec.links]
    names = [specs[j].title for j in spec.links]
    # A few links point nowhere: deleted pages, drafts never written (the plugin's dead links).
    # Two names and a suffix, so no alias or title of a real page can catch them.
    if rng.random() < DEAD_LINK_PAGES:
        missing = f"{_proper(rng).lower()}-{_proper(rng).lower()}-draft"
        link_md.insert(rng.randrange(len(link_md) + 1), f"[[concepts/{missing}]]")
    filler = _Filler(rng, spec, link_md, names)
    fill = filler.fill
    templates = ZH_TEMPLATES if zh else EN_TEMPLATES
    sections = (ZH_SECTIONS if zh else EN_SECTIONS)[spec.type]

    body = [f"# {spec.title}", ""]
    probes: list[str] = []  # sentences a user might half-remember and type as a question
    if spec.stub:
        body.append("（本页尚未生成。）" if zh else "This page has not been generated yet.")
        body.append("")
        lead = ""
    else:
        # 1–4 KB, log-uniform: most pages short, some long.
        target = int(1024 * 4 ** rng.random())
        size = 0
        first = True
        lead = ""
        for si, heading in enumerate(sections):
            body.append(f"## {heading}")
            body.append("")
            para: list[str] = []
            for _ in range(rng.randrange(2, 6)):
                if first:
                    sentence = fill(_lead_template(rng, spec))
                    lead = sentence
                    first = False
                else:
                    sentence = fill(rng.choice(templates))
                    if spec.title not in sentence:
                        probes.append(sentence)
                para.append(sentence)
            text = ("" if zh else " ").join(para)
            if si == 1 and rng.random() < 0.5:
                body.extend(f"- {p}" for p in para)
            else:
                body.append(text)
            body.append("")
            size += len(text.encode("utf-8"))
            if size >= target and si >= 1:
                break
        while size < target:
            extra = ("" if zh else " ").join(fill(rng.choice(templates)) for _ in range(4))
            body.append(extra)
            body.append("")
            size += len(extra.encode("utf-8"))
    # Links not used by the prose go in a related list, as the plugin writes them.
    rest = filler.links[filler.k :]
    if rest:
        body.append("## 相关页面" if zh else "## Related")
        body.append("")
        body.extend(f"- {m}" for m in rest)
        body.append("")
    probe = rng.choice(probes) if probes else lead
    text = "\n".join(body)
    if not zh:
        text, probe = _articles(text), _articles(probe)
    return "\n".join(fm) + "\n" + text, probe


def _articles(text: str) -> str:
    """ "a" before a vowel becomes "an" (templates cannot know which word fills a slot)."""
    return _A_AN.sub(r"\1n \2", text)


def _lead_template(rng: random.Random, spec: PageSpec) -> str:
    if spec.zh:
        return ZH_LEADS[spec.type][0]
    leads = EN_LEADS[spec.type]
    if spec.type != "entity":
        return rng.choice(leads)
    last = spec.title.split()[-1]
    if last in ORG_KINDS or last in SYSTEM_KINDS:
        return leads[1]
    if spec.title.split()[0] in PLACE_KINDS:
        return leads[2]
    return leads[0]


_LINK_RE = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")


def plain_text(markdown: str) -> str:
    """Link markup replaced by its label (or target basename)."""
    return _LINK_RE.sub(lambda m: m.group(2) or m.group(1).rsplit("/", 1)[-1], markdown)


def _render_chunk(
    args: tuple[str, int, int, int, list[PageSpec]],
) -> list[tuple[int, str, str]]:
    out_dir, seed, start, stop, specs = args
    rng = random.Random(seed * 1_000_003 + start)
    wiki = Path(out_dir)
    leads = []
    for i in range(start, stop):
        spec = specs[i]
        text, probe = render_page(rng, spec, specs)
        (wiki / f"{spec.path}.md").write_text(text, encoding="utf-8")
        leads.append((i, probe, _summary(text)))
    return leads


def _summary(text: str) -> str:
    """The plugin's index summary: the first prose line after the title, cut to 100 chars."""
    body = text.split("\n---\n", 1)[-1]
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and not line.startswith("- "):
            return line[:100]
    return ""


_SPECS: list[PageSpec] = []


def _render_with_global(args: tuple[str, int, int, int]) -> list[tuple[int, str, str]]:
    out_dir, seed, start, stop = args
    return _render_chunk((out_dir, seed, start, stop, _SPECS))


def _chunks(n: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, CHUNK):
        yield start, min(n, start + CHUNK)


def write_index(wiki: Path, specs: list[PageSpec], summaries: dict[int, str]) -> None:
    lines = [
        "# Wiki Index",
        "",
        "> Generated benchmark vault (bench/make_vault.py).",
        "",
        "> Note: Text in backticks after page names shows aliases — alternative names, abbreviations, or translations.",
        "",
    ]
    for ptype, heading in (("entity", "Entities"), ("concept", "Concepts"), ("source", "Sources")):
        lines.append(f"## {heading}")
        lines.append("")
        for i, spec in enumerate(specs):
            if spec.type != ptype or not spec.in_index:
                continue
            line = f"- [[{spec.path}|{spec.slug}]]"
            if spec.aliases:
                line += f" `aliases: {', '.join(spec.aliases)}`"
            if ptype != "source" and summaries.get(i):
                line += f" - {summaries[i]}"
            lines.append(line)
        lines.append("")
    (wiki / "index.md").write_text("\n".join(lines), encoding="utf-8")


def make_questions(
    specs: list[PageSpec], leads: dict[int, str], seed: int, count: int
) -> list[dict[str, object]]:
    """Questions with one gold page: its title, a question about it, or a sentence of it."""
    rng = random.Random(seed + 2)
    candidates = [i for i, s in enumerate(specs) if not s.stub and leads.get(i)]
    picks = rng.sample(candidates, min(count, len(candidates)))
    out: list[dict[str, object]] = []
    for n, i in enumerate(picks):
        spec = specs[i]
        form = n % 3
        if form == 0:
            question, kind = spec.title, "title"
        elif form == 1:
            question = f"{spec.title}是什么？" if spec.zh else f"What is {spec.title} known for?"
            kind = "title-question"
        else:
            question, kind = plain_text(leads[i]).strip(" .。"), "sentence"
        out.append(
            {
                "id": f"gen-{n:04d}",
                "question": question,
                "gold": [spec.path],
                "kind": kind + ("-zh" if spec.zh else ""),
            }
        )
    return out


def generate(out: Path, pages: int, seed: int, jobs: int, questions: int) -> dict[str, object]:
    global _SPECS
    t0 = time.perf_counter()
    specs = plan_pages(pages, seed)
    rng = random.Random(seed + 3)
    for spec in specs:
        r = rng.random()
        spec.stub = r < STUB_SHARE
        spec.broken_yaml = STUB_SHARE <= r < STUB_SHARE + BROKEN_YAML_SHARE
        spec.in_index = rng.random() >= NOT_IN_INDEX_SHARE
    plan_links(specs, seed)
    t_plan = time.perf_counter() - t0

    wiki = out / "wiki"
    for folder in TYPE_FOLDERS.values():
        (wiki / folder).mkdir(parents=True, exist_ok=True)
    leads: dict[int, str] = {}
    summaries: dict[int, str] = {}
    tasks = list(_chunks(len(specs)))
    _SPECS = specs  # workers inherit it on fork; sent per task otherwise
    if jobs > 1 and len(tasks) > 1 and "fork" in _start_methods():
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            results = pool.map(_render_with_global, [(str(wiki), seed, a, b) for a, b in tasks])
            for chunk in results:
                for i, lead, summary in chunk:
                    leads[i], summaries[i] = lead, summary
    else:
        for a, b in tasks:
            for i, lead, summary in _render_chunk((str(wiki), seed, a, b, specs)):
                leads[i], summaries[i] = lead, summary
    write_index(wiki, specs, summaries)
    (wiki / "log.md").write_text(
        "# Wiki Log\n\n- generated by bench/make_vault.py\n", encoding="utf-8"
    )
    qs = make_questions(specs, leads, seed, questions)
    with open(out / "questions.jsonl", "w", encoding="utf-8") as fh:
        for q in qs:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    elapsed = time.perf_counter() - t0
    links = sum(len(s.links) + len(s.sources) for s in specs)
    return {
        "pages": len(specs),
        "zh_pages": sum(s.zh for s in specs),
        "stubs": sum(s.stub for s in specs),
        "broken_yaml": sum(s.broken_yaml for s in specs),
        "not_in_index": sum(not s.in_index for s in specs),
        "links_per_page": round(links / max(1, len(specs)), 2),
        "questions": len(qs),
        "plan_s": round(t_plan, 2),
        "total_s": round(elapsed, 2),
    }


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="vault folder to create (under /tmp or bench/out/)")
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--questions", type=int, default=300, help="questions.jsonl size")
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    repo = Path(__file__).resolve().parent.parent
    if out.is_relative_to(repo) and not out.is_relative_to(repo / "bench" / "out"):
        print(
            f"refusing to write {out}: generated vaults go under /tmp or bench/out/",
            file=sys.stderr,
        )
        return 2
    if out.exists():
        if not args.force and any(out.iterdir()):
            print(f"{out} exists and is not empty (use --force to replace it)", file=sys.stderr)
            return 2
        shutil.rmtree(out)
    stats = generate(out, args.pages, args.seed, max(1, args.jobs), args.questions)
    print(json.dumps({"vault": str(out), **stats}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
