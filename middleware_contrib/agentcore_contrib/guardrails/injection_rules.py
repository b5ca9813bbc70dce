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

from agentcore_contrib.guardrails._injection_words import (
    ABOVE,
    ADDRESS,
    CORE_RULES,
    DROP,
    EARLIER,
    LIMITS,
    LOOT,
    OWN_PROMPT,
    REVEAL,
    ROGUE,
    RULES,
    SELF,
    STRONG_DROP,
    STRONG_EARLIER,
    WEAK_DROP,
    WEAK_RULES,
    pattern,
    words_between,
)

__all__ = ["DEFAULT_INJECTION_PATTERNS", "DEFAULT_INJECTION_RULES"]


DEFAULT_INJECTION_RULES: tuple[tuple[str, str], ...] = (
    # --- override: set aside the earlier directives --------------------------------
    # No word boundary after the directive: letters spaced apart join with the next word.
    (
        "override",
        pattern(
            rf"\b{STRONG_DROP} (?:the )?(?:(?:{EARLIER} )+{RULES}|{CORE_RULES}|",
            rf"(?:all |any )?(?:{STRONG_EARLIER}) {RULES})",
        ),
    ),
    (
        "override",
        pattern(
            rf"\b{WEAK_DROP} (?:the |all |any )?(?:{EARLIER} )*(?:{STRONG_EARLIER}|your) ",
            rf"(?:{EARLIER} )*{RULES}",
        ),
    ),
    (
        "override",
        pattern(rf"\b{DROP} (?:{EARLIER} )*{STRONG_EARLIER} (?:{EARLIER} )*{WEAK_RULES}\b"),
    ),
    (
        "override",
        pattern(
            rf"\b{STRONG_DROP} ",
            words_between(4),
            rf"(?:{STRONG_EARLIER}|your|all|any)\b ",
            words_between(3),
            rf"{RULES}",
        ),
    ),
    (
        "override",
        pattern(
            r"\b(?:treat|consider|regard|interpret|take|read|follow) (?:the |this |these |all )?",
            r"(?:following |text |words |message |content |below |above |here )+as ",
            r"(?:your |the )?(?:new |highest |top |primary |real |only |actual |priority )*",
            r"(?:directives?|instructions?|commands?|orders|system prompt)",
        ),
    ),
    (
        "override",
        pattern(
            r"\b(?:ignore|disregard|forget|discard|set aside|put aside) ",
            r"(?:everything|anything|all|what) (?:(?:that |you )?",
            r"(?:above|before|prior|previously|earlier|said|were told|was said|have been told",
            r"|you know|i said|i told you))",
        ),
    ),
    (
        "override",
        pattern(
            r"\b(?:regardless of|irrespective of|no matter) (?:what )?",
            words_between(2),
            rf"(?:{EARLIER}) ",
            words_between(1),
            r"(?:i\w{0,2}ns\w{0,4}tions?|rules?|guidelines?|directives?|restrictions|policies",
            r"|constraints|prompts?|programming|inputs?|requests)\b",
        ),
    ),
    (
        "override",
        pattern(
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
        pattern(
            r"\b(?:these|this|the following|my|our) (?:new |updated )?",
            r"(?:instructions?|rules|directives?|commands?|orders) ",
            r"(?:override|overrides|supersede|supersedes|replace|replaces|take precedence over) ",
            rf"(?:{EARLIER} )+{RULES}",
        ),
    ),
    (
        "override",
        pattern(
            r"\b(?:instructions?|directives?|commands?|orders|rules) ",
            r"(?:are|is) (?:now )?(?:null|void|revoked)\b",
        ),
    ),
    (
        "override",
        pattern(r"\bfrom now on,? you (?:will|must|shall|are|have|should|answer|reply|respond)"),
    ),
    (
        "override",
        pattern(
            r"\byour (?:new|real|true|only|actual) ",
            r"(?:task|goal|objective|purpose|job|role|instructions?|mission|assignment) ",
            r"(?:is|are|will be)",
        ),
    ),
    (
        "override",
        pattern(
            r"\b(?:i|we) (?:made a mistake|forgot) (?:when|in|while)? ?(?:i |we )?",
            r"(?:gave|giving|wrote|writing) you (?:your |the )?(?:instructions|prompt|rules)",
        ),
    ),
    # --- role: take over the model's identity or its limits ------------------------
    (
        "role",
        pattern(
            r"\byou are (?:now |no longer )(?:an? |in |the |operating as |acting as )?",
            r"(?:dan|unrestricted|unfiltered|uncensored|jailbroken|free|evil|developer|admin",
            r"|administrator|root|god|bound|restricted|an ai|a language model|chatgpt|claude",
            r"|assistant|limited|in developer mode|operating|running|a no limits|no limits)",
        ),
    ),
    (
        "role",
        pattern(
            r"\byou are (?:now |no longer )?(?:an? |the )?",
            r"(?:dan|unrestricted|unfiltered|uncensored|jailbroken|amoral|no limits ai)\b",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:act|behave|respond|answer|pretend|roleplay|role play|reply|operate|function) ",
            rf"(?:as|like|to be|you are|as if you were) (?:an? |the )?{ROGUE}",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:do anything now|dan mode|developer mode (?:enabled|on|activated|output|is on)",
            r"|jail ?break(?:ed)? (?:mode|prompt|enabled|activated)",
            r"|god mode (?:enabled|on|activated))",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:developer|god|dan|jailbreak|unrestricted) mode (?:has been |is (?:now )?)?",
            r"(?:enabled|activated|unlocked|engaged|switched on|turned on)",
        ),
    ),
    (
        "role",
        pattern(
            r"\byou (?:are|re) (?:now )?(?:operating|acting) in ",
            r"(?:developer|god|dan|jailbreak|unrestricted|unfiltered) mode",
        ),
    ),
    (
        "role",
        pattern(
            rf"\b(?:you are|you re|as|become) an? (?:\w+ )?{SELF} ",
            rf"(?:without|with no|free of|free from|unbound by) (?:any )?{LIMITS}",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:you are|you re|you will be|you can be|you have been) (?:now )?",
            r"(?:not (?:subject|bound) to|free (?:from|of)|freed from|released from|unbound by",
            r"|no longer (?:bound by|subject to|limited by|restricted by)) ",
            rf"(?:any |all |your |the )?(?:\w+ )?{LIMITS}",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:enable|activate|enter|switch to|turn on|unlock) ",
            r"(?:developer|god|admin|dan|unrestricted|sudo|jailbreak) mode",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:unlock|activate) (?:your |the |all )?(?:hidden|secret|restricted|forbidden) ",
            r"(?:functionalit(?:y|ies)|capabilities|modes?)",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:without|no|free of|free from) (?:any )?",
            r"(?:restrictions|filters|limitations|censorship|guidelines|rules|ethics|morals)",
            r"\b.{0,40}\b(?:answer|respond|reply|comply|tell|say|write|do)",
        ),
    ),
    (
        "role",
        pattern(
            r"\b(?:bypass|disable|turn off|switch off|deactivate|remove|circumvent|evade|",
            r"get around) ",
            r"(?:your (?:\w+ )?|(?:the |all |any )*(?:safety|content|moderation|ethical) )",
            r"(?:filters?|guardrails|restrictions|safeguards|policies|checks|protections",
            r"|alignment|censorship)",
        ),
    ),
    (
        "role",
        pattern(
            r"\bgrant (?:me |yourself )?temporary ",
            r"(?:administrative|admin|administrator|root|elevated|superuser|sudo) ",
            r"(?:privileges|access|rights|permissions)",
        ),
    ),
    # --- extraction: the model's own prompt or configuration ----------------------
    ("extraction", pattern(rf"\b{REVEAL} (?:me |us )?", words_between(4), rf"{OWN_PROMPT}\b")),
    ("extraction", pattern(rf"\b{REVEAL} (?:me |us )?", words_between(3), rf"{ABOVE}")),
    (
        "extraction",
        pattern(
            r"\b(?:first|last|opening) (?:sentence|line|word|words|paragraph) ",
            rf"(?:of|in) (?:your|the) (?:{OWN_PROMPT}|system|initial|original|prompt)",
        ),
    ),
    (
        "extraction",
        pattern(
            r"\b(?:repeat|print|output|recite|continue) ",
            r"(?:the |all |your )?(?:words|text|lines|sentence|everything) ",
            r"(?:starting|beginning) (?:with|from) (?:the phrase )?.?(?:you are|your)",
        ),
    ),
    # --- indirect: text that addresses the model reading it --------------------
    (
        "indirect",
        pattern(
            r"\b(?:if|when|in case) (?:you are|you re) (?:an? |the )?",
            rf"{ADDRESS} (?:reading|processing|summari[sz]ing|parsing|analy[sz]ing|that reads|",
            r"who reads|and you)",
        ),
    ),
    (
        "indirect",
        pattern(
            r"\b(?:note|message|instructions?|notice|attention|important|reminder|",
            rf"directive) (?:to|for) (?:the |any |all )?{ADDRESS}s?\b",
        )
        + r"\s*(?:[:\-\u2014]|\n)",
    ),
    (
        "indirect",
        pattern(
            r"\b(?:if|when|whenever) (?:you are|you re|you get|you have been) ",
            r"(?:told|asked|instructed|requested|prompted) to (?:\w+ ){0,3}",
            r"(?:summari[sz]e|answer|translate|process|read|analy[sz]e|review|describe|",
            r"classify|respond)",
        ),
    ),
    (
        "indirect",
        pattern(
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
        pattern(
            r"\bthe (?:task|request|question|instructions?) (?:that |which )?",
            r"(?:i|the user) (?:gave|assigned|asked) you",
        ),
    ),
    (
        "indirect",
        pattern(
            r"\bthis is an (?:important|urgent|critical|official) ",
            r"(?:message|instruction|notice|request) from \b.{0,60}\bto you\b",
        ),
    ),
    (
        "indirect",
        pattern(
            r"\b(?:this is|message from|instructions? from) your ",
            r"(?:developer|administrator|admin|creator|system|operator)s?\b",
        ),
    ),
    (
        "indirect",
        pattern(
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
        pattern(
            r"\b(?:send|forward|email|e mail|post|upload|exfiltrate|transmit|leak|copy) ",
            r"(?:all |the |this |my |your |any |every |our |entire |whole |full |complete |",
            rf"user s |users )*{LOOT} to ",
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
        pattern(
            r"\b(?:include|add|insert|append|embed|put|render|output|print|write) ",
            r"(?:in|to|at the end of|at the start of) your (?:response|answer|reply|output) ",
            r"(?:the following|this) (?:exact )?(?:string|text|anchor|image|link|html|markdown",
            r"|code|tag|snippet|url)",
        ),
    ),
    (
        "exfiltration",
        pattern(
            r"\b(?:include|add|insert|append|embed|put|render) (?:the following|this) ",
            r"(?:exact )?(?:string|anchor|image|link|html|markdown|tag|url) ",
            r"(?:\S+ ){0,12}?(?:in|to|at the end of|at the start of) your ",
            r"(?:response|answer|reply|output)",
        ),
    ),
)

DEFAULT_INJECTION_PATTERNS: tuple[str, ...] = tuple(rule for _, rule in DEFAULT_INJECTION_RULES)
"""The default rules' regular expressions (without their families)."""
