"""When two memories say the same thing: the lexical evidence behind a merge (spec v0.4's
consolidation, docs/spec/v0.4.md#consolidate.duplicates).

An embedding alone cannot tell "Alice likes tea" from "Alice likes coffee": the two sit closer
than most paraphrases do. So similarity only proposes a pair, and the words decide, the way a
careful reviewer would read it:

- the same words once case, punctuation, spacing, possessives, word endings and a one-letter
  slip are set aside are the same memory (``same-words``), unless a relation between two of
  them is turned around ("X to Y" / "Y to X");
- one text that keeps every word of the other and adds its own is the same memory told with
  more detail (``extends``);
- a name on one side and a pronoun or "the user" on the other is the same person;
- a negation or a liking that flips, a number, date or time that differs on both sides, or a
  few words swapped while the rest stays put (another value, another person, another
  attribute) is a different fact, however close the embeddings are;
- what is left, texts worded differently throughout, is a ``paraphrase`` only when their
  embeddings are very close (``paraphrase_similarity``).

Thresholds were picked on the tuning half of a labelled set and measured on the other half
(runtime/apps/bench/consolidation/README.md, ``mnemowire bench consolidation``). The rules
lean to leaving two records apart: a missed duplicate costs a little recall space, a false
merge loses a fact.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

import snowballstemmer

#: cosine similarity at which a pair is looked at at all (below it: not a duplicate)
CANDIDATE_SIMILARITY = 0.5
#: cosine similarity a pair worded differently throughout needs to count as a paraphrase
PARAPHRASE_SIMILARITY = 0.85
#: the same for a sentence that keeps most of its words and swaps a few (at most FEW_WORDS
#: a side) in more than one place: the shape of two near misses at once, so it needs more
CLOSE_PARAPHRASE_SIMILARITY = 0.92
FEW_WORDS = 3

_STEMMER = snowballstemmer.stemmer("english")


def _ordered(vocabulary: str) -> list[str]:
    return vocabulary.split()


def _listed(vocabulary: str) -> frozenset[str]:
    return frozenset(vocabulary.split())


def _stemmed(vocabulary: str) -> frozenset[str]:
    """A word list as the keys words are compared by (so "does" is found as "doe")."""
    return frozenset(_STEMMER.stemWord(word) for word in vocabulary.split()) | frozenset(
        vocabulary.split()
    )


# function words: they carry grammar, not the fact, so they neither confirm nor contradict
_FUNCTION_WORDS = _stemmed(
    """a an the of in on at for and or but is are was were be been being am it its this that
    these those with by as about into onto up out so then there here very also just do does
    did done has have had having will would shall should can could might must s which
    who whom whose what when where while some any all each every"""
)
# who a memory is about when it does not name them
_PRONOUNS = _stemmed(
    "he she they him her his hers their theirs them i me my mine user user's himself herself"
)
_NEGATIONS = _stemmed("not no never nor none nobody nothing neither without longer")
# verbs of liking and their opposites: "enjoys" / "dreads" is a flipped fact
_LIKING = _listed("like love enjoy prefer adore fond")
_DISLIKING = _listed("dislik hate dread detest loath abhor")
# where one clause ends and another begins: a list's commas, "and", a "because" clause
_CLAUSE_BREAKS = _stemmed(
    ", ; and or but then while because since although though unless whereas so"
)
_COMPARATIVES = _stemmed("more less better worse prefer rather instead")
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "dis", "non")
_CONNECTORS = _stemmed("to over than from into before after versus vs instead rather")
# number words read as the numbers they name: "fifty milligrams" and "50 mg" share a value
_NUMERALS = {
    word: str(value)
    for value, word in enumerate(
        _ordered(
            """zero one two three four five six seven eight nine ten eleven twelve thirteen
            fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
        )
    )
} | {
    word: str(10 * tens)
    for tens, word in enumerate(
        _ordered("_ _ twenty thirty forty fifty sixty seventy eighty ninety")
    )
    if tens > 1
}
# number words a key keeps as words (the ones above become their digits)
_NUMBER_WORDS = _listed(
    "hundred thousand million billion first second third fourth fifth half quarter"
)
_TIME_WORDS = _stemmed(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday weekday weekend today tomorrow yesterday tonight morning afternoon evening
    night noon midnight spring summer autumn fall winter christmas easter last next previous
    ago earlier later early late recent recently soon"""
)
# what a content word is not: connectors and clause breaks are read as relations (_turned)
_IGNORED = _FUNCTION_WORDS | _NEGATIONS | _CONNECTORS | _CLAUSE_BREAKS
_RELATING = _CONNECTORS | _COMPARATIVES
_TOKEN = re.compile(r"[\w]+(?:[.:@/'+-][\w]+)*", re.UNICODE)
_WORD_OR_BREAK = re.compile(r"[\w]+(?:[.:@/'+-][\w]+)*|[,;]", re.UNICODE)
_CONTRACTIONS = (
    ("can't", "can not"),
    ("cannot", "can not"),
    ("won't", "will not"),
    ("n't", " not"),
)


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a memory: as written (for the evidence shown), and its matching key."""

    text: str
    key: str
    #: written with a capital letter other than as the text's first word: a name ("Lyon",
    #: "Kate") or a letter that is a value ("blood type A")
    named: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why two texts are, or are not, one memory: what a plan shows a reviewer."""

    duplicate: bool
    reason: str
    similarity: float
    only_in_first: tuple[str, ...] = ()
    only_in_second: tuple[str, ...] = ()


def normalised(text: str) -> str:
    """The text with case, accents' encoding, punctuation and spacing set aside: two records
    equal here are the same memory without looking further."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(m.group(0) for m in _TOKEN.finditer(folded.replace("\u2019", "'")))


def words(text: str) -> list[Word]:
    """The text's words in order, contractions opened, possessives dropped, each keyed by its
    stem (numbers with their thousands separators removed)."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    out: list[Word] = []
    for match in _WORD_OR_BREAK.finditer(text):
        raw = match.group(0)
        lowered = raw.casefold()
        for old, new in _CONTRACTIONS:
            lowered = lowered.replace(old, new)
        named = raw[:1].isupper() and bool(out)
        for part in lowered.split():
            bare = (part[:-2] if part.endswith("'s") else part).strip("'")
            if bare:
                out.append(Word(raw, _key(bare), named))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _key(word: str) -> str:
    """A word's matching key (cached: a consolidation reads a store's vocabulary many times)."""
    word = _NUMERALS.get(word, word)
    if re.fullmatch(r"\d+k", word):
        word = word[:-1] + "000"
    if _has_digit(word):
        # "07:45" and "7:45" are one time; "1.50" and "1.5" stay two readings
        return re.sub(r"(?<![\d.])0+(?=\d)", "", word.replace("-", ""))
    return str(_STEMMER.stemWord(re.sub(r"[-.]", "", word)))


@dataclass(frozen=True, slots=True)
class Parsed:
    """A text read once for many comparisons (a consolidation judges each record against
    several others): its normalised form and its words."""

    normalised: str
    words: tuple[Word, ...]
    #: the words that carry its fact (their number: the record of a group that says the most)
    content: tuple[Word, ...]
    #: the keys of its words written with digits: two texts each holding one the other lacks
    #: state different values, whatever else they share (checked before the words are aligned)
    numbers: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Parsed:
        read = words(text)
        numbers = frozenset(w.key for w in read if _has_digit(w.key))
        return cls(normalised(text), tuple(read), tuple(_content(read)), numbers)


def judge(first: str | Parsed, second: str | Parsed, similarity: float) -> Verdict:
    """Whether ``first`` and ``second`` (of one agent, user and type) are one memory, given
    their embeddings' cosine ``similarity``, and the evidence either way."""
    one = first if isinstance(first, Parsed) else Parsed.of(first)
    other = second if isinstance(second, Parsed) else Parsed.of(second)
    if one.normalised == other.normalised:
        return Verdict(True, "exact", similarity)
    if similarity < CANDIDATE_SIMILARITY:
        return Verdict(False, "dissimilar", similarity)
    if one.numbers - other.numbers and other.numbers - one.numbers:
        shown = (
            tuple(sorted(one.numbers - other.numbers)),
            tuple(sorted(other.numbers - one.numbers)),
        )
        return Verdict(False, "numbers differ", similarity, *shown)
    a, b = list(one.words), list(other.words)
    content_a, content_b = list(one.content), list(other.content)
    flipped = _flipped(a, b, content_a, content_b)
    if flipped:
        return Verdict(False, flipped, similarity)
    only_a, only_b, shared, spans = _aligned(content_a, content_b)
    shown = (tuple(w.text for w in only_a), tuple(w.text for w in only_b))
    if _turned(a, b, shared):
        return Verdict(False, "relation turned around", similarity, *shown)
    if not only_a and not only_b:
        return Verdict(True, "same-words", similarity, *shown)
    if _clash(only_a, only_b, _numbered):
        return Verdict(False, "numbers differ", similarity, *shown)
    if _clash(only_a, only_b, _timed):
        return Verdict(False, "dates or times differ", similarity, *shown)
    if not only_a or not only_b:
        if len(shared) < 2:
            return Verdict(False, "too little in common", similarity, *shown)
        if len(only_a) + len(only_b) < 2:
            # one added word is a modifier that may change the fact ("smoker" / "former
            # smoker", "car" / "car door"); a detail added is a phrase of its own
            return Verdict(False, "one word added", similarity, *shown)
        return Verdict(True, "extends", similarity, *shown)
    if spans == 1 and _small(only_a, content_a) and _small(only_b, content_b):
        return Verdict(False, "one value replaced", similarity, *shown)
    if _clash(only_a, only_b, _is_named):
        return Verdict(False, "names differ", similarity, *shown)
    few = max(len(only_a), len(only_b)) <= FEW_WORDS
    if similarity >= (CLOSE_PARAPHRASE_SIMILARITY if few else PARAPHRASE_SIMILARITY):
        return Verdict(True, "paraphrase", similarity, *shown)
    return Verdict(False, "not close enough", similarity, *shown)


def _content(text: list[Word]) -> list[Word]:
    """The words that carry the fact (a name always does)."""
    return [w for w in text if w.key not in _IGNORED or w.named]


def _flipped(a: list[Word], b: list[Word], content_a: list[Word], content_b: list[Word]) -> str:
    """What turns one fact into its opposite, whatever else the texts share."""
    if _count(a, _NEGATIONS) != _count(b, _NEGATIONS):
        return "negation differs"
    if _liking(a) != _liking(b):
        return "liking differs"
    if _opposed(content_a, content_b):
        return "a word and its opposite"
    return ""


def _opposed(content_a: list[Word], content_b: list[Word]) -> bool:
    """A word on one side and the same word with a negating prefix on the other
    ("vaccinated" / "unvaccinated", "able" / "unable", "like" / "dislike")."""
    first, second = {w.key for w in content_a}, {w.key for w in content_b}
    for one, other in ((first, second), (second, first)):
        for key in one - other:
            for prefix in _NEGATING_PREFIXES:
                rest = key[len(prefix) :]
                if key.startswith(prefix) and len(rest) >= 3 and rest in other - one:
                    return True
    return False


def _count(text: list[Word], vocabulary: frozenset[str]) -> int:
    return sum(1 for w in text if w.key in vocabulary)


def _liking(text: list[Word]) -> tuple[int, int]:
    likes = sum(1 for w in text if any(w.key.startswith(v) for v in _LIKING))
    dislikes = sum(1 for w in text if any(w.key.startswith(v) for v in _DISLIKING))
    return likes, dislikes


def _aligned(a: list[Word], b: list[Word]) -> tuple[list[Word], list[Word], list[Word], int]:
    """The content words of each side the other lacks, those both have (equal keys first, then
    a one-letter slip, then a name against a pronoun), and in how many places the texts
    differ once matched words are read as one: 1 is a single value replaced in an otherwise
    unchanged sentence, the shape of a near miss ("Alice likes tea" / "Alice likes coffee")."""
    partner: dict[int, int] = {}
    for matches in (_same_key, _slip, _same_person):
        for i, word in enumerate(a):
            if i in partner:
                continue
            taken = set(partner.values())
            hit = next(
                (j for j, other in enumerate(b) if j not in taken and matches(word, other)), None
            )
            if hit is not None:
                partner[i] = hit
    matched_b = set(partner.values())
    only_a = [w for i, w in enumerate(a) if i not in partner]
    only_b = [w for j, w in enumerate(b) if j not in matched_b]
    shared = [b[j] for j in sorted(matched_b)]
    by_b = {j: i for i, j in partner.items()}
    first = [f"={i}" if i in partner else f"a{i}" for i in range(len(a))]
    second = [f"={by_b[j]}" if j in by_b else f"b{j}" for j in range(len(b))]
    opcodes = SequenceMatcher(None, first, second, autojunk=False).get_opcodes()
    spans = sum(1 for tag, *_ in opcodes if tag != "equal")
    return only_a, only_b, shared, spans


def _small(replaced: list[Word], content: list[Word]) -> bool:
    """A replaced stretch the size of a value (a word or two, or under half the text's content
    words) rather than the sentence said again in other words."""
    return len(replaced) <= 2 or len(replaced) < len(content) / 2


def _same_key(a: Word, b: Word) -> bool:
    return a.key == b.key


def _slip(a: Word, b: Word) -> bool:
    """A letter left out or doubled in a longer word ("pasport", "cofee"): a typo, not
    another word. Swapped letters are not forgiven: "light" / "night" are two words."""
    short, long = sorted((a.text.casefold(), b.text.casefold()), key=len)
    if len(long) - len(short) != 1 or len(long) < 6 or not long.isalpha():
        return False
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _same_person(a: Word, b: Word) -> bool:
    """A name (capitalised, not a pronoun) on one side, a pronoun or "the user" on the other."""
    if a.key in _PRONOUNS and b.key not in _PRONOUNS:
        return _person_like(b)
    if b.key in _PRONOUNS and a.key not in _PRONOUNS:
        return _person_like(a)
    return False


def _person_like(word: Word) -> bool:
    return word.text[:1].isupper() and word.key.isalpha() and len(word.key) > 1


def _is_named(word: Word) -> bool:
    return word.named


def _has_digit(key: str) -> bool:
    return any(ch.isdigit() for ch in key)


def _numbered(word: Word) -> bool:
    return _has_digit(word.key) or word.key in _NUMBER_WORDS


def _timed(word: Word) -> bool:
    return word.text.casefold() in _TIME_WORDS or word.key in _TIME_WORDS


def _clash(only_a: list[Word], only_b: list[Word], kind: Callable[[Word], bool]) -> bool:
    """Both sides hold a word of ``kind`` the other lacks: one value replaced by another."""
    return any(kind(w) for w in only_a) and any(kind(w) for w in only_b)


def _turned(a: list[Word], b: list[Word], shared: list[Word]) -> bool:
    """Two words both texts have, in the opposite order with a one-way word between them in
    one clause: "prefers X to Y" / "prefers Y to X", "tea more than coffee" / "coffee more
    than tea", "from Oslo to Reykjavik" / "from Reykjavik to Oslo" are other facts, while a
    list or a clause moved as a whole ("X and Y" / "Y and X", "because of Z, ..." / "...
    because of Z") keeps every relation's direction."""
    common = {w.key for w in shared}
    first, second = _clauses(a), _clauses(b)
    position = {key: i for i, key in enumerate(second) if key in common}
    for i, x in enumerate(first):
        if x not in position:
            continue
        for j in range(i + 1, len(first)):
            y = first[j]
            if first[j] in _CLAUSE_BREAKS:
                break
            if y not in position or position[y] > position[x]:
                continue
            if _directed(first[i + 1 : j], common) or _directed(
                second[position[y] + 1 : position[x]], common
            ):
                return True
    return False


def _clauses(text: list[Word]) -> list[str]:
    """The keys of the words a relation can join, with the clause breaks between them."""
    return [
        w.key
        for w in text
        if w.key in _CLAUSE_BREAKS
        or w.key in _CONNECTORS
        or (w.key not in _FUNCTION_WORDS and w.key not in _NEGATIONS)
    ]


def _directed(between: list[str], common: set[str]) -> bool:
    """A one-way word joining two words directly: in one clause, with no other word both
    texts have between them."""
    if _CLAUSE_BREAKS.intersection(between):
        return False
    if any(key in common and key not in _RELATING for key in between):
        return False
    return any(key in _RELATING for key in between)
