"""A SYNTHETIC corpus for the runner's scale benchmark: N cards and M cases.

Everything here is generated from word lists with a fixed seed: invented
services of an invented clinic network, no real people, no medical advice.
It exists to measure how time and memory grow, not retrieval quality.

Shape, chosen to resemble the reference KB at scale:

* cards in en / es-419 / pt-BR (in equal shares), each about one topic
  (a service × an aspect × a site), with 1-3 paragraphs of 2-4 sentences, so
  a card makes one or two 600-character chunks;
* cases paraphrase a card's topic with some of its words and some noise;
  gold = every card of that language on the same topic (disjunctive, as
  ``must_cite_one_of`` allows); one case in ten is ``no_match`` with empty gold.

Usage: ``python benchmarks/scale_corpus.py --cards 10000 --cases 5000 --out DIR``
writes ``DIR/kb.jsonl`` and ``DIR/cases.jsonl`` (formats ``recall-gate`` reads).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from recall_gate.core.records import Card, Case

__all__ = ["generate", "write_corpus"]

_LANGUAGES = ("en", "es-419", "pt-BR")

_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "service": (
            "appointments",
            "refills",
            "billing",
            "referrals",
            "lab results",
            "telehealth",
            "records",
            "parking",
            "interpreters",
            "vaccines",
            "payment plans",
            "insurance",
            "portal access",
            "visiting hours",
            "imaging",
            "physical therapy",
        ),
        "aspect": (
            "hours",
            "costs",
            "forms",
            "deadlines",
            "eligibility",
            "contacts",
            "delays",
            "documents",
            "cancellations",
            "reminders",
            "privacy",
            "accessibility",
        ),
        "site": (
            "Elm Street",
            "Harbor",
            "Northgate",
            "Riverside",
            "Old Mill",
            "Cedar Park",
            "Lakeview",
            "Southfield",
            "Hilltop",
            "Market Square",
        ),
        "filler": (
            "patients",
            "please",
            "call",
            "the desk",
            "online",
            "each week",
            "a form",
            "staff",
            "your visit",
            "the portal",
            "by phone",
            "in person",
            "two days",
            "a reminder",
            "the clinic",
            "a copy",
            "your card",
            "on request",
        ),
        "ask": ("how do i", "what about", "question on", "help with", "where are the"),
    },
    "es-419": {
        "service": (
            "citas",
            "recetas",
            "facturación",
            "derivaciones",
            "resultados",
            "videoconsulta",
            "expediente",
            "estacionamiento",
            "intérpretes",
            "vacunas",
            "planes de pago",
            "seguro",
            "acceso al portal",
            "visitas",
            "radiología",
            "fisioterapia",
        ),
        "aspect": (
            "horarios",
            "costos",
            "formularios",
            "plazos",
            "requisitos",
            "contactos",
            "demoras",
            "documentos",
            "cancelaciones",
            "recordatorios",
            "privacidad",
            "accesibilidad",
        ),
        "site": (
            "calle Olmo",
            "Puerto",
            "Norte",
            "Ribera",
            "Molino",
            "Parque Cedro",
            "Mirador",
            "Sur",
            "Colina",
            "Plaza Mayor",
        ),
        "filler": (
            "pacientes",
            "por favor",
            "llame",
            "la recepción",
            "en línea",
            "cada semana",
            "un formulario",
            "el personal",
            "su visita",
            "el portal",
            "por teléfono",
            "en persona",
            "dos días",
            "un aviso",
            "la clínica",
            "una copia",
            "su credencial",
        ),
        "ask": ("cómo hago", "qué pasa con", "duda sobre", "ayuda con", "dónde están los"),
    },
    "pt-BR": {
        "service": (
            "consultas",
            "receitas",
            "cobrança",
            "encaminhamentos",
            "exames",
            "teleconsulta",
            "prontuário",
            "estacionamento",
            "intérpretes",
            "vacinas",
            "parcelamento",
            "convênio",
            "acesso ao portal",
            "visitas",
            "radiologia",
            "fisioterapia",
        ),
        "aspect": (
            "horários",
            "custos",
            "formulários",
            "prazos",
            "requisitos",
            "contatos",
            "atrasos",
            "documentos",
            "cancelamentos",
            "lembretes",
            "privacidade",
            "acessibilidade",
        ),
        "site": (
            "rua Olmo",
            "Porto",
            "Norte",
            "Ribeira",
            "Moinho",
            "Parque Cedro",
            "Mirante",
            "Sul",
            "Colina",
            "Praça Central",
        ),
        "filler": (
            "pacientes",
            "por favor",
            "ligue",
            "a recepção",
            "online",
            "toda semana",
            "um formulário",
            "a equipe",
            "sua consulta",
            "o portal",
            "por telefone",
            "pessoalmente",
            "dois dias",
            "um aviso",
            "a clínica",
            "uma cópia",
            "sua carteirinha",
        ),
        "ask": ("como faço", "e sobre", "dúvida sobre", "ajuda com", "onde ficam os"),
    },
}


def _sentence(rng: random.Random, words: dict[str, tuple[str, ...]], topic: list[str]) -> str:
    parts = rng.sample(words["filler"], 4) + rng.sample(topic, 2)
    rng.shuffle(parts)
    return " ".join(parts).capitalize() + "."


def generate(n_cards: int, n_cases: int, *, seed: int = 23) -> tuple[list[Card], list[Case]]:
    """``n_cards`` synthetic cards and ``n_cases`` cases (deterministic for a seed)."""
    rng = random.Random(seed)
    cards: list[Card] = []
    topics: list[list[str]] = []
    for i in range(n_cards):
        language = _LANGUAGES[i % len(_LANGUAGES)]
        words = _WORDS[language]
        topic = [
            rng.choice(words["service"]),
            rng.choice(words["aspect"]),
            rng.choice(words["site"]),
        ]
        paragraphs = [
            " ".join(_sentence(rng, words, topic) for _ in range(rng.randint(2, 4)))
            for _ in range(rng.randint(1, 3))
        ]
        cards.append(
            Card(
                id=f"syn-{language.lower()}-{i:05d}",
                language=language,
                title=f"{topic[0]} · {topic[1]} · {topic[2]} (synthetic #{i})",
                body="\n\n".join(paragraphs),
                tags=("synthetic", "scale-benchmark"),
            )
        )
        topics.append(topic)
    same_topic: dict[tuple[str, ...], list[str]] = {}
    for card, topic in zip(cards, topics, strict=True):
        same_topic.setdefault((card.language, *topic), []).append(card.id)
    cases: list[Case] = []
    for j in range(n_cases):
        target = rng.randrange(n_cards)
        card, topic = cards[target], topics[target]
        words = _WORDS[card.language]
        no_match = j % 10 == 9
        if no_match:
            query = f"{rng.choice(words['ask'])} {' '.join(rng.sample(words['filler'], 3))}"
        else:
            query = f"{rng.choice(words['ask'])} {' '.join(topic)} {rng.choice(words['filler'])}"
        cases.append(
            Case(
                id=f"syn-case-{j:05d}",
                language=card.language,
                case_type="no_match" if no_match else "golden",
                query=query,
                must_cite_one_of=() if no_match else tuple(same_topic[(card.language, *topic)]),
            )
        )
    return cards, cases


def write_corpus(cards: list[Card], cases: list[Case], out: Path) -> tuple[Path, Path]:
    """Write ``kb.jsonl`` and ``cases.jsonl`` under ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    kb, case_file = out / "kb.jsonl", out / "cases.jsonl"
    kb.write_text(
        "".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) + "\n" for c in cards),
        encoding="utf-8",
    )
    case_file.write_text(
        "".join(
            json.dumps(c.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n"
            for c in cases
        ),
        encoding="utf-8",
    )
    return kb, case_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--cases", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    cards, cases = generate(args.cards, args.cases, seed=args.seed)
    kb, case_file = write_corpus(cards, cases, args.out)
    print(f"SYNTHETIC: {len(cards)} cards → {kb}, {len(cases)} cases → {case_file}")


if __name__ == "__main__":
    main()
