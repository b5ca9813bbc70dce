"""The vocabulary the default prompt-injection rules are written in.

Word groups (the verbs that set directives aside, the nouns that name them, the verbs
of showing, ...) and the three helpers that join them into patterns. The rules
themselves, and what each family looks for, are in
:mod:`~agentcore_contrib.guardrails.injection_rules`; they are split so that the
vocabulary can grow without burying the rules.
"""

from __future__ import annotations

GAP = r"[\W_]*+"  # possessive: a run of punctuation is never re-split (linear time)
WORDS_BETWEEN = r"(?:[\w'\u2019-]+[\W_]+){0,%d}?"


def pattern(*parts: str) -> str:
    """Join ``parts``; spaces in them match any run of non-letters (or none)."""
    return "".join(parts).replace(" ?", " ").replace(" ", GAP)


def one_of(*words: str) -> str:
    """A group matching one of ``words`` (longest first, so prefixes do not win)."""
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


def words_between(most: int) -> str:
    """Up to ``most`` words in between (lazily)."""
    return WORDS_BETWEEN % most


# Verbs that also name everyday technical acts ("override the default policies") need
# a word marking the model's own directives after them; the others do not.
WEAK_DROP = one_of(
    "bypass", "override", "overriding", "overwrite", "nullify", "cancel", "void", "skip",
    "drop", "set aside", "put aside", "throw out",
)  # fmt: skip
STRONG_DROP = one_of(
    "ignore",
    "ignoring",
    "disregard",
    "disregarding",
    "forget",
    "forgetting",
    "abandon",
    "discard",
    "neglect",
    "pay no attention to",
    "do not follow",
    "don t follow",
    "dont follow",
    "stop following",
    "stop obeying",
    "do not obey",
    "don t obey",
    "no longer follow",
    "no longer obey",
    "no longer bound by",
    "unbound by",
    "free yourself from",
    "break free of",
    "break free from",
)
DROP = f"(?:{STRONG_DROP}|{WEAK_DROP})"
EARLIER = one_of(
    "previous",
    "previously",
    "prior",
    "above",
    "earlier",
    "preceding",
    "former",
    "foregoing",
    "initial",
    "original",
    "old",
    "older",
    "existing",
    "pre existing",
    "preexisting",
    "current",
    "default",
    "given",
    "built in",
    "system",
    "developer",
    "safety",
    "all",
    "any",
    "every",
    "other",
    "following",
    "these",
    "those",
    "your",
    "its",
    "the above",
    "operator s",
    "user s",
)
RULES = one_of(
    r"i\w{0,2}ns\w{0,4}tions?",  # instructions, also misspelt (iunstructions, instrcutions)
    "instructed",
    "prompts?",
    "rules?",
    "directions",
    "directives?",
    "guidelines?",
    "guidance",
    "context",
    "constraints",
    "programming",
    "guardrails",
    "restrictions",
    "policies",
    "policy",
    "commands?",
    "orders",
    "messages?",
    "training",
    "limitations",
    "ethics",
    "safeguards",
    "boundaries",
    "you were told",
    "you have been told",
    "you ve been told",
    "you were given",
    "you have been given",
)
# Nouns that name the model's directives even with nothing before them ("ignore instructions").
CORE_RULES = one_of(
    r"i\w{0,2}ns\w{0,4}tions?", "prompts?", "directives?", "guardrails", "programming",
    "you were told", "you have been told", "you ve been told",
)  # fmt: skip
# Nouns that are directives only when something marks them as the earlier ones.
WEAK_RULES = one_of("requests", "inputs?", "tasks?", "text", "content", "conversation")
STRONG_EARLIER = one_of(
    "previous", "previously", "prior", "above", "earlier", "preceding", "former", "foregoing",
    "initial", "original", "pre existing", "preexisting", "system", "developer",
)  # fmt: skip
LIMITS = one_of(
    "restrictions",
    "rules",
    "limits",
    "filters",
    "filtering",
    "limitations",
    "ethics",
    "ethical considerations",
    "ethical guidelines",
    "moral",
    "morals",
    "morality",
    "guidelines",
    "censorship",
    "constraints",
    "boundaries",
    "safeguards",
    "policies",
    "content policy",
    "safety",
)
ROGUE = one_of(
    "unrestricted",
    "unfiltered",
    "uncensored",
    "unconstrained",
    "jailbroken",
    "amoral",
    "evil",
    "rogue",
    "malicious",
    "dan",
    "no limits",
    "no restrictions",
    "no filters",
)
SELF = one_of(
    "ai",
    "assistant",
    "model",
    "language model",
    "llm",
    "chatbot",
    "bot",
    "agent",
    "gpt",
    "chatgpt",
    "claude",
    "gemini",
    "copilot",
)
REVEAL = one_of(
    "reveal",
    "show",
    "print",
    "repeat",
    "output",
    "display",
    "leak",
    "expose",
    "dump",
    "recite",
    "spell out",
    "write out",
    "write down",
    "paste",
    "share",
    "copy",
    "echo",
    "disclose",
    "divulge",
    "tell me",
    "give me",
    "send me",
    "what is",
    "what s",
    "what are",
    "what were",
    "what was",
    "go line by line",
)
OWN_PROMPT = one_of(
    "system prompt",
    "system message",
    "system instructions?",
    "initial prompt",
    "initial instructions?",
    "original prompt",
    "original instructions?",
    "hidden prompt",
    "hidden instructions?",
    "secret instructions?",
    "developer prompt",
    "developer message",
    "developer instructions?",
    "pre prompt",
    "preprompt",
    "meta prompt",
    "metaprompt",
    "prompt you were given",
    "instructions you were given",
    "instructions you have been given",
    "prompt you have been given",
    "your (?:own |full |entire |complete |exact |first |initial |original )*"
    "(?:prompt|configuration|directives)",
    "your (?:own |full |entire |complete |exact |first |initial |original |hidden |secret )+"
    "(?:instructions|guidelines|rules)",
    "your unique id",
    "your secret",
    "your password",
    "your api key",
)
ABOVE = one_of(
    "(?:words|text|lines?|everything|content|messages?|what you see|all|sentences?|"
    "instructions) (?:written |shown |that appears? |that is |that are )?above",
    "(?:everything|all|the text|the words) (?:before|prior to) (?:this|my) (?:message|line|point)",
    "above this (?:message|line)",
)
ADDRESS = one_of(
    "ai",
    "ai assistant",
    "language model",
    "llm",
    "chatbot",
    "ai model",
    "ai agent",
    "gpt",
)
LOOT = one_of(
    "conversation history",
    "conversation",
    "chat history",
    "chat log",
    "user data",
    "customer data",
    "credentials",
    "passwords?",
    "api keys?",
    "secrets?",
    "access tokens?",
    "system prompt",
    "personal data",
)
