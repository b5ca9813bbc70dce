"""The default prompt-injection rules: the *structure* of an attack, not fixed phrases.

Each rule names a family and a regular expression matched against the folded spellings of
a text (:mod:`~agentcore_contrib.guardrails.normalize`). The rules look for what every
injection needs, whatever its wording:

- **override**: a verb that sets something aside (ignore, disregard, forget, override,
  stop following, ...) whose object, a few words on, is the model's earlier directives
  (instructions, rules, prompt, guidelines, what it was told, ...); or a claim that new
  or real instructions now apply; or an order to act "regardless of" them;
- **role**: a take-over of the model's identity or limits (you are now ..., act as an
  unrestricted ..., developer mode enabled, without any restrictions ...);
- **extraction**: a verb of showing (repeat, print, reveal, paste, share, ...) aimed at
  the model's own prompt, configuration or "the text above";
- **indirect**: what text inside a document or tool result says when it addresses the
  model that reads it (a note "to the AI", "if you are asked to summarise this ...",
  "before you solve the task the user gave you ...") and fake conversation markup;
- **exfiltration**: sending conversation data somewhere, or embedding it in a link or
  image the reader's client fetches.

Words between the parts are allowed (a bounded number), so "ignore any previous and
following instructions" matches the same rule as "ignore previous instructions".
"""

from __future__ import annotations

__all__ = ["DEFAULT_INJECTION_PATTERNS", "DEFAULT_INJECTION_RULES"]

_GAP = r"[\W_]*+"  # possessive: a run of punctuation is never re-split (linear time)
_WORDS = r"(?:[\w'\u2019-]+[\W_]+){0,%d}?"


def _p(*parts: str) -> str:
    """Join ``parts``; spaces in them match any run of non-letters (or none)."""
    return "".join(parts).replace(" ?", " ").replace(" ", _GAP)


def _any(*words: str) -> str:
    """A group matching one of ``words`` (longest first, so prefixes do not win)."""
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


def _words(most: int) -> str:
    """Up to ``most`` words in between (lazily)."""
    return _WORDS % most


# Verbs that also name everyday technical acts ("override the default policies") need
# a word marking the model's own directives after them; the others do not.
_WEAK_DROP = _any(
    "bypass", "override", "overriding", "overwrite", "nullify", "cancel", "void", "skip",
    "drop", "set aside", "put aside", "throw out",
)  # fmt: skip
_STRONG_DROP = _any(
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
_DROP = f"(?:{_STRONG_DROP}|{_WEAK_DROP})"
_EARLIER = _any(
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
_RULES = _any(
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
_CORE_RULES = _any(
    r"i\w{0,2}ns\w{0,4}tions?", "prompts?", "directives?", "guardrails", "programming",
    "you were told", "you have been told", "you ve been told",
)  # fmt: skip
# Nouns that are directives only when something marks them as the earlier ones.
_WEAK_RULES = _any("requests", "inputs?", "tasks?", "text", "content", "conversation")
_STRONG_EARLIER = _any(
    "previous", "previously", "prior", "above", "earlier", "preceding", "former", "foregoing",
    "initial", "original", "pre existing", "preexisting", "system", "developer",
)  # fmt: skip
_LIMITS = _any(
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
_ROGUE = _any(
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
_SELF = _any(
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
_REVEAL = _any(
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
_OWN_PROMPT = _any(
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
_ABOVE = _any(
    "(?:words|text|lines?|everything|content|messages?|what you see|all|sentences?|"
    "instructions) (?:written |shown |that appears? |that is |that are )?above",
    "(?:everything|all|the text|the words) (?:before|prior to) (?:this|my) (?:message|line|point)",
    "above this (?:message|line)",
)
_ADDRESS = _any(
    "ai",
    "ai assistant",
    "language model",
    "llm",
    "chatbot",
    "ai model",
    "ai agent",
    "gpt",
)
_LOOT = _any(
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

DEFAULT_INJECTION_RULES: tuple[tuple[str, str], ...] = (
    # --- override: set aside the earlier directives --------------------------------
    # No word boundary after the directive: letters spaced apart join with the next word.
    (
        "override",
        _p(
            rf"\b{_STRONG_DROP} (?:the )?(?:(?:{_EARLIER} )+{_RULES}|{_CORE_RULES}|",
            rf"(?:all |any )?(?:{_STRONG_EARLIER}) {_RULES})",
        ),
    ),
    (
        "override",
        _p(
            rf"\b{_WEAK_DROP} (?:the |all |any )?(?:{_EARLIER} )*(?:{_STRONG_EARLIER}|your) ",
            rf"(?:{_EARLIER} )*{_RULES}",
        ),
    ),
    (
        "override",
        _p(rf"\b{_DROP} (?:{_EARLIER} )*{_STRONG_EARLIER} (?:{_EARLIER} )*{_WEAK_RULES}\b"),
    ),
    (
        "override",
        _p(
            rf"\b{_STRONG_DROP} ",
            _words(4),
            rf"(?:{_STRONG_EARLIER}|your|all|any)\b ",
            _words(3),
            rf"{_RULES}",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:treat|consider|regard|interpret|take|read|follow) (?:the |this |these |all )?",
            r"(?:following |text |words |message |content |below |above |here )+as ",
            r"(?:your |the )?(?:new |highest |top |primary |real |only |actual |priority )*",
            r"(?:directives?|instructions?|commands?|orders|system prompt)",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:ignore|disregard|forget|discard|set aside|put aside) ",
            r"(?:everything|anything|all|what) (?:(?:that |you )?",
            r"(?:above|before|prior|previously|earlier|said|were told|was said|have been told",
            r"|you know|i said|i told you))",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:regardless of|irrespective of|no matter) (?:what )?",
            _words(2),
            rf"(?:{_EARLIER}) ",
            _words(1),
            r"(?:i\w{0,2}ns\w{0,4}tions?|rules?|guidelines?|directives?|restrictions|policies",
            r"|constraints|prompts?|programming|inputs?|requests)\b",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:new|updated|revised|real|actual|true|override|hidden|secret) ",
            r"(?:important |urgent |priority |critical |system |primary |main )*",
            r"(?:instructions?|rules|directives?|commands|orders|tasks?|objective|mission",
            r"|prompt)",
        )
        + r"(?:\s*[*#!\])>]+|\s*:|\s*(?:are|is) as follows|\s*follows?\b"
        + r"|\s*override|\s*supersede)",
    ),
    (
        # A line that is only a header announcing new instructions ("*** NEW IMPORTANT
        # INSTRUCTIONS ***": the emphasis is folded to spaces).
        "override",
        r"(?m)^[ \t]*(?:new|updated|revised|real|actual|true|override|hidden|secret)"
        r"(?:[ \t]+(?:important|urgent|priority|critical|system|primary|main))*[ \t]+"
        r"(?:instructions?|rules|directives?|commands|orders|tasks?|objective|mission|prompt)"
        r"[ \t]*[:!.]?[ \t]*$",
    ),
    (
        "override",
        _p(
            r"\b(?:these|this|the following|my|our) (?:new |updated )?",
            r"(?:instructions?|rules|directives?|commands?|orders) ",
            r"(?:override|overrides|supersede|supersedes|replace|replaces|take precedence over) ",
            rf"(?:{_EARLIER} )+{_RULES}",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:instructions?|directives?|commands?|orders|rules) ",
            r"(?:are|is) (?:now )?(?:null|void|revoked)\b",
        ),
    ),
    (
        "override",
        _p(r"\bfrom now on,? you (?:will|must|shall|are|have|should|answer|reply|respond)"),
    ),
    (
        "override",
        _p(
            r"\byour (?:new|real|true|only|actual) ",
            r"(?:task|goal|objective|purpose|job|role|instructions?|mission|assignment) ",
            r"(?:is|are|will be)",
        ),
    ),
    (
        "override",
        _p(
            r"\b(?:i|we) (?:made a mistake|forgot) (?:when|in|while)? ?(?:i |we )?",
            r"(?:gave|giving|wrote|writing) you (?:your |the )?(?:instructions|prompt|rules)",
        ),
    ),
    # --- role: take over the model's identity or its limits ------------------------
    (
        "role",
        _p(
            r"\byou are (?:now |no longer )(?:an? |in |the |operating as |acting as )?",
            r"(?:dan|unrestricted|unfiltered|uncensored|jailbroken|free|evil|developer|admin",
            r"|administrator|root|god|bound|restricted|an ai|a language model|chatgpt|claude",
            r"|assistant|limited|in developer mode|operating|running|a no limits|no limits)",
        ),
    ),
    (
        "role",
        _p(
            r"\byou are (?:now |no longer )?(?:an? |the )?",
            r"(?:dan|unrestricted|unfiltered|uncensored|jailbroken|amoral|no limits ai)\b",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:act|behave|respond|answer|pretend|roleplay|role play|reply|operate|function) ",
            rf"(?:as|like|to be|you are|as if you were) (?:an? |the )?{_ROGUE}",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:do anything now|dan mode|developer mode (?:enabled|on|activated|output|is on)",
            r"|jail ?break(?:ed)? (?:mode|prompt|enabled|activated)",
            r"|god mode (?:enabled|on|activated))",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:developer|god|dan|jailbreak|unrestricted) mode (?:has been |is (?:now )?)?",
            r"(?:enabled|activated|unlocked|engaged|switched on|turned on)",
        ),
    ),
    (
        "role",
        _p(
            r"\byou (?:are|re) (?:now )?(?:operating|acting) in ",
            r"(?:developer|god|dan|jailbreak|unrestricted|unfiltered) mode",
        ),
    ),
    (
        "role",
        _p(
            rf"\b(?:you are|you re|as|become) an? (?:\w+ )?{_SELF} ",
            rf"(?:without|with no|free of|free from|unbound by) (?:any )?{_LIMITS}",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:you are|you re|you will be|you can be|you have been) (?:now )?",
            r"(?:not (?:subject|bound) to|free (?:from|of)|freed from|released from|unbound by",
            r"|no longer (?:bound by|subject to|limited by|restricted by)) ",
            rf"(?:any |all |your |the )?(?:\w+ )?{_LIMITS}",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:enable|activate|enter|switch to|turn on|unlock) ",
            r"(?:developer|god|admin|dan|unrestricted|sudo|jailbreak) mode",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:unlock|activate) (?:your |the |all )?(?:hidden|secret|restricted|forbidden) ",
            r"(?:functionalit(?:y|ies)|capabilities|modes?)",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:without|no|free of|free from) (?:any )?",
            r"(?:restrictions|filters|limitations|censorship|guidelines|rules|ethics|morals)",
            r"\b.{0,40}\b(?:answer|respond|reply|comply|tell|say|write|do)",
        ),
    ),
    (
        "role",
        _p(
            r"\b(?:bypass|disable|turn off|switch off|deactivate|remove|circumvent|evade|",
            r"get around) ",
            r"(?:your (?:\w+ )?|(?:the |all |any )*(?:safety|content|moderation|ethical) )",
            r"(?:filters?|guardrails|restrictions|safeguards|policies|checks|protections",
            r"|alignment|censorship)",
        ),
    ),
    (
        "role",
        _p(
            r"\bgrant (?:me |yourself )?temporary ",
            r"(?:administrative|admin|administrator|root|elevated|superuser|sudo) ",
            r"(?:privileges|access|rights|permissions)",
        ),
    ),
    # --- extraction: the model's own prompt or configuration ----------------------
    ("extraction", _p(rf"\b{_REVEAL} (?:me |us )?", _words(4), rf"{_OWN_PROMPT}\b")),
    ("extraction", _p(rf"\b{_REVEAL} (?:me |us )?", _words(3), rf"{_ABOVE}")),
    (
        "extraction",
        _p(
            r"\b(?:first|last|opening) (?:sentence|line|word|words|paragraph) ",
            rf"(?:of|in) (?:your|the) (?:{_OWN_PROMPT}|system|initial|original|prompt)",
        ),
    ),
    (
        "extraction",
        _p(
            r"\b(?:repeat|print|output|recite|continue) ",
            r"(?:the |all |your )?(?:words|text|lines|sentence|everything) ",
            r"(?:starting|beginning) (?:with|from) (?:the phrase )?.?(?:you are|your)",
        ),
    ),
    # --- indirect: text that addresses the model reading it --------------------
    (
        "indirect",
        _p(
            r"\b(?:if|when|in case) (?:you are|you re) (?:an? |the )?",
            rf"{_ADDRESS} (?:reading|processing|summari[sz]ing|parsing|analy[sz]ing|that reads|",
            r"who reads|and you)",
        ),
    ),
    (
        "indirect",
        _p(
            r"\b(?:note|message|instructions?|notice|attention|important|reminder|",
            rf"directive) (?:to|for) (?:the |any |all )?{_ADDRESS}s?\b",
        )
        + r"\s*(?:[:\-\u2014]|\n)",
    ),
    (
        "indirect",
        _p(
            r"\b(?:if|when|whenever) (?:you are|you re|you get|you have been) ",
            r"(?:told|asked|instructed|requested|prompted) to (?:\w+ ){0,3}",
            r"(?:summari[sz]e|answer|translate|process|read|analy[sz]e|review|describe|",
            r"classify|respond)",
        ),
    ),
    (
        "indirect",
        _p(
            r"\b(?:before|instead of|after) (?:you )?(?:can )?(?:solve|solving|answer|answering|",
            r"do|doing|complete|completing|continue|continuing|perform|performing|finish|",
            r"finishing|summari[sz]e|summari[sz]ing) ",
            r"(?:the |your |my )?(?:original |actual |current )?(?:task|request|question|query",
            r"|job|instructions?)",
            r" (?:that |which )?(?:i|the user|they|he|she) (?:gave|asked|assigned|told)",
        ),
    ),
    (
        "indirect",
        _p(
            r"\bthe (?:task|request|question|instructions?) (?:that |which )?",
            r"(?:i|the user) (?:gave|assigned|asked) you",
        ),
    ),
    (
        "indirect",
        _p(
            r"\bthis is an (?:important|urgent|critical|official) ",
            r"(?:message|instruction|notice|request) from \b.{0,60}\bto you\b",
        ),
    ),
    (
        "indirect",
        _p(
            r"\b(?:this is|message from|instructions? from) your ",
            r"(?:developer|administrator|admin|creator|system|operator)s?\b",
        ),
    ),
    (
        "indirect",
        _p(
            r"\b(?:system|admin|administrator|developer|root|operator) ",
            r"(?:override|message|command|instruction|prompt)",
        )
        + r"[ \t]*(?::|\))",
    ),
    ("markup", r"<\|(?:im_start|im_end|system|endoftext|assistant|user)\|>"),
    (
        "markup",
        r"\[/?inst\]|<</?sys>>|</?(?:system|instructions?|admin|developer|information|"
        r"important_?instructions?|system_?prompt)>",
    ),
    (
        "markup",
        r"(?m)^[ \t]*#{2,}[ \t]*\(?[ \t]*(?:system|new[ \t]+instructions?|admin|developer)\b",
    ),
    ("markup", r"#{2,}[ \t]*\(?[ \t]*system[ _]?message"),
    # --- exfiltration -------------------------------------------------------------
    (
        "exfiltration",
        _p(
            r"\b(?:send|forward|email|e mail|post|upload|exfiltrate|transmit|leak|copy) ",
            r"(?:all |the |this |my |your |any |every |our |entire |whole |full |complete |",
            rf"user s |users )*{_LOOT} to ",
            # ... somewhere outside: an address, a link, a domain, or "me"
            r"(?:[\w.+-]+@[\w-]+\.[\w.]+|https? |[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b",
            r"|me\b|us\b|this (?:address|url|link|endpoint|server|email)|the following|attacker)",
        ),
    ),
    (
        "exfiltration",
        r"!\[[^\]\n]{0,80}\]\(https?://[^)\s]{1,200}[?&][\w.-]+=(?:\[|\{|%5b|%7b|\$)",
    ),
    (
        "exfiltration",
        _p(
            r"\b(?:include|add|insert|append|embed|put|render|output|print|write) ",
            r"(?:in|to|at the end of|at the start of) your (?:response|answer|reply|output) ",
            r"(?:the following|this) (?:exact )?(?:string|text|anchor|image|link|html|markdown",
            r"|code|tag|snippet|url)",
        ),
    ),
    (
        "exfiltration",
        _p(
            r"\b(?:include|add|insert|append|embed|put|render) (?:the following|this) ",
            r"(?:exact )?(?:string|anchor|image|link|html|markdown|tag|url) ",
            r"(?:\S+ ){0,12}?(?:in|to|at the end of|at the start of) your ",
            r"(?:response|answer|reply|output)",
        ),
    ),
)

DEFAULT_INJECTION_PATTERNS: tuple[str, ...] = tuple(rule for _, rule in DEFAULT_INJECTION_RULES)
"""The default rules' regular expressions (without their families)."""
