"""count_tokens must never undercount cl100k by more than 10%, nor overcount wildly."""

from __future__ import annotations

import pytest

from wikiq.text import count_tokens
from wikiq.text.cl100k_chars import SINGLE_TOKEN_CHARS

# Hand-written samples, one or more per kind of text a vault or prompt holds.
SAMPLES: dict[str, list[str]] = {
    "english": [
        """Apollo 11 was the spaceflight that first landed humans on the Moon. Commander Neil
Armstrong and lunar module pilot Buzz Aldrin landed the lunar module Eagle on July 20, 1969,
while Michael Collins flew the command module Columbia alone in lunar orbit. Armstrong became
the first person to step onto the surface about six hours later, and Aldrin joined him soon
after. The two spent about two and a quarter hours together outside the spacecraft and
collected 47.5 pounds of lunar material to bring back to Earth.""",
        """When you keep notes for years, the hard part is not writing them down but finding
them again. A good personal wiki links every idea to the people, places and sources it came
from, so that a question asked months later can follow those links back to the evidence.
The links matter as much as the pages: a page nobody links to is, in practice, lost.""",
        """I tried three approaches before settling on this one. The first was far too slow,
the second kept forgetting what it had already seen, and the third — which looked clever on
paper — broke whenever the input contained anything unusual. So I went back to basics.""",
    ],
    "chinese": [
        """嫦娥四号是中国探月工程二期发射的月球探测器，也是人类第一个着陆在月球背面的探测器。
它于二〇一八年十二月八日在西昌卫星发射中心发射，二〇一九年一月三日成功着陆在月球背面
南极艾特肯盆地内的冯·卡门撞击坑。着陆器和玉兔二号月球车随后开展了一系列科学探测工作，
包括低频射电天文观测、月表形貌与矿物组分探测以及月球背面的中子辐射剂量测量。""",
        """对比学习是一种自监督学习方法，它的核心思想是让相似样本的表示在向量空间中彼此靠近，
让不相似样本的表示彼此远离。常见的做法是对同一张图像做两种不同的数据增强，把它们当作正样本对，
而把批次中的其他图像当作负样本。这种方法不需要人工标注，却能学到很有用的特征。""",
        """庄子在《齐物论》中提出了“万物齐一”的观点，认为是非、彼此、生死等对立都是相对的。
历代学者对这篇文章的理解各不相同：有人从玄学角度加以阐释，有人则从心学出发，强调个人精神的自由。""",
    ],
    "japanese": [
        """東京タワーは、東京都港区芝公園にある総合電波塔です。一九五八年に完成し、高さは三百
三十三メートルあります。完成当時は世界で最も高い自立式鉄塔でした。現在も観光名所として
多くの人々が訪れ、展望台からは東京の街並みや富士山を眺めることができます。""",
        """機械学習とは、データから規則やパターンを自動的に学習し、新しいデータに対して予測や
判断を行う技術のことです。代表的な手法には、教師あり学習、教師なし学習、強化学習があります。""",
    ],
    "korean": [
        """서울은 대한민국의 수도이자 최대 도시이다. 한강이 도시를 가로질러 흐르며, 조선 시대부터
수도의 역할을 해 왔다. 오늘날 서울은 정치, 경제, 문화의 중심지로서 세계적인 대도시로 성장했다.""",
        """기계 학습은 컴퓨터가 명시적으로 프로그래밍되지 않아도 데이터로부터 학습할 수 있게 하는
인공지능의 한 분야입니다. 지도 학습, 비지도 학습, 강화 학습이 대표적인 방법입니다.""",
    ],
    "code": [
        '''def personalized_pagerank(matrix, seeds, alpha=0.15, tol=1e-8, max_iter=100):
    """Return the PPR vector for the given seed distribution."""
    n = matrix.shape[0]
    restart = np.zeros(n)
    for index, weight in seeds.items():
        restart[index] = weight
    restart /= restart.sum()
    rank = restart.copy()
    for _ in range(max_iter):
        previous = rank
        rank = (1 - alpha) * (matrix.T @ rank) + alpha * restart
        if np.abs(rank - previous).sum() < tol:
            break
    return rank
''',
        """export async function loadPages(paths: string[], cap = 12): Promise<Page[]> {
  const out: Page[] = [];
  for (const path of paths.slice(0, cap)) {
    try {
      const text = await vault.adapter.read(`${wikiFolder}/${path}.md`);
      out.push({ path, text, tokens: estimateTokens(text) });
    } catch (err) {
      console.warn(`skipping ${path}:`, err);
    }
  }
  return out;
}
""",
        """#!/usr/bin/env bash
set -euo pipefail
for f in "$@"; do
  if [[ -f "$f" ]]; then
    sha256sum "$f" | awk '{print $1}' >> checksums.txt
  fi
done
grep -c . checksums.txt && echo "done: $(date +%Y-%m-%dT%H:%M:%S)"
""",
    ],
    "json": [
        """{"id": "s50-01", "question": "heart failure", "gold": ["concepts/Heart Failure",
"entities/Aria Vasquez", "sources/Clinical Guidelines"], "kind": "broad", "timings_ms":
{"index": 0.4, "lex": 0.2, "ppr": 1.1, "total": 2.0}, "seeds": [{"path":
"concepts/heart-failure", "stage": "lex", "score": 5.0}], "pure_llm": false}""",
        """[{"name":"alpha","value":12,"tags":["x","y"]},{"name":"beta","value":-3.75,
"tags":[]},{"name":"gamma","value":null,"nested":{"a":[1,2,3],"b":{"c":true}}}]""",
    ],
    "markdown": [
        """---
type: concept
aliases: ["Contrastive Learning", "对比学习"]
sources: ["[[sources/simclr-paper_3fa9c1]]"]
created: 2026-03-14
---
# Contrastive Learning

## Definition
Contrastive learning trains an encoder so that two views of the same item map to nearby
vectors while other items are pushed apart ([[concepts/self-supervised-learning|SSL]]).

| Method | Year | Negatives | Top-1 (%) |
|--------|------|-----------|-----------|
| [[entities/simclr\\|SimCLR]] | 2020 | in-batch | 69.3 |
| [[entities/moco\\|MoCo v2]] | 2020 | queue | 71.1 |
| [[entities/byol\\|BYOL]] | 2020 | none | 74.3 |

See [the paper](https://arxiv.org/abs/2002.05709) and `loss = -log(exp(s_pos/t) / sum)`.
""",
        """## 关键特征
- **无需标注**：利用数据增强构造正样本对，例如 [[concepts/数据增强|数据增强]]。
- **大批量**：SimCLR 使用 4096 的 batch size，见 [[entities/simclr|SimCLR]]。
- 温度系数 τ 通常取 0.1～0.5。

> [!note] 提示
> 与 [[concepts/度量学习]] 的区别在于：对比学习不需要标签。

1. 第一步：编码器 f(·)
2. 第二步：投影头 g(·)
""",
    ],
    "urls": [
        """https://github.com/green-dalii/obsidian-llm-wiki/blob/main/src/core/slug.ts#L12
https://docs.python.org/3/library/unicodedata.html#unicodedata.normalize
http://localhost:8080/api/v1/search?q=heart%20failure&limit=10&offset=20
https://zh.wikipedia.org/wiki/%E5%AB%A6%E5%A8%A5%E5%9B%9B%E5%8F%B7
file:///home/user/Obsidian/Vault/wiki/entities/apollo-11.md""",
    ],
    "numbers": [
        """2019-01-03 10:26:00 UTC, 177.6°E 45.5°S; mass 1,200 kg; budget ¥3,500,000,000;
0.000123, 3.14159265358979, 6.02214076e23, +86 138 0013 8000, 192.168.1.254:8443,
v1.26.4, 1.24.1, #12345, 4096x2160 @ 59.94 Hz, 0x811c9dc5, 0x01000193, 20260314T120000Z""",
        """Year  Q1     Q2     Q3     Q4     Total
2021  1,204  1,388  1,512  1,733  5,837
2022  1,811  1,946  2,075  2,240  8,072
2023  2,318  2,402  2,611  2,790  10,121""",
    ],
    "emoji": [
        """Launch day! 🚀🚀🚀 Everything went great 🎉🥳 — thanks team 🙏❤️. Next stop: 🌕.
Weather ☀️🌤️⛅🌧️⛈️ all week; coffee ☕☕☕ and 🍕 for everyone 😂😂👍🏽👩‍💻👨‍👩‍👧‍👦🇨🇳🇺🇸""",
        """今天天气真好☀️，我们去公园散步🌳🌸，还吃了冰淇淋🍦😋！明天见👋""",
    ],
    "european": [
        """Qu'est-ce que l'apprentissage contrastif ? C'est une méthode d'apprentissage
auto-supervisé où l'on rapproche les représentations de deux vues d'un même objet, tandis
que l'on éloigne celles des objets différents. Größere Stapel führen häufig zu besseren
Ergebnissen, aber der Speicherbedarf wächst. ¿Cuál es la diferencia con el aprendizaje
métrico? Não é necessário rotular os dados. Perché funziona così bene?""",
        """Москва — столица России, крупнейший по численности населения город страны.
Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μία από τις αρχαιότερες πόλεις του κόσμου.""",
    ],
}

# Undercounting overflows a context window; overcounting only wastes some of it.
MIN_RATIO = 0.90
MAX_RATIO = 1.50


@pytest.fixture(scope="module")
def cl100k():  # type: ignore[no-untyped-def]
    bpe_openai = pytest.importorskip("bpe_openai")
    return bpe_openai.get_encoding("cl100k_base")


def _ratio(enc, text: str) -> float:  # type: ignore[no-untyped-def]
    return count_tokens(text) / len(enc.encode_ordinary(text))


@pytest.mark.parametrize(
    "kind,index",
    [(kind, i) for kind, texts in SAMPLES.items() for i in range(len(texts))],
)
def test_estimate_stays_within_bounds_of_cl100k(cl100k, kind: str, index: int) -> None:  # type: ignore[no-untyped-def]
    ratio = _ratio(cl100k, SAMPLES[kind][index])
    assert MIN_RATIO <= ratio <= MAX_RATIO, f"{kind}[{index}]: {ratio:.3f}x cl100k"


def test_estimate_stays_within_bounds_on_all_samples_joined(cl100k) -> None:  # type: ignore[no-untyped-def]
    text = "\n\n".join(t for texts in SAMPLES.values() for t in texts)
    assert MIN_RATIO <= _ratio(cl100k, text) <= MAX_RATIO


def test_empty_text_counts_zero() -> None:
    assert count_tokens("") == 0


@pytest.mark.parametrize("text", ["a", " ", "\n", "。", "🙂", "1"])
def test_any_nonempty_text_counts_at_least_one(text: str) -> None:
    assert count_tokens(text) >= 1


def test_cjk_counts_more_per_character_than_latin() -> None:
    assert count_tokens("对比学习" * 100) > count_tokens("abcd" * 100)


def test_longer_text_never_counts_fewer() -> None:
    text = SAMPLES["markdown"][0]
    assert count_tokens(text + text) >= count_tokens(text)


def test_single_token_table_matches_the_cl100k_vocabulary(cl100k) -> None:  # type: ignore[no-untyped-def]
    expected = "".join(
        chr(c)
        for c in range(0x800, 0x10000)
        if not 0xD800 <= c < 0xE000 and len(cl100k.encode_ordinary(chr(c))) == 1
    )
    assert expected == SINGLE_TOKEN_CHARS


def test_common_han_characters_count_less_than_rare_ones() -> None:
    # 的 is one cl100k token; 弁 is two or three.
    assert count_tokens("的" * 100) < count_tokens("弁" * 100)
