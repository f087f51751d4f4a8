"""E-mail text rules: the new part of a reply, whether it asks something, whether the person promises.

Pure functions over one message's text, in English and Chinese. Deliberately simple and
documented, so that a thread's state can be explained from its messages:

- **The new part** (`fresh_text`): quoted lines (`>`) and everything from a reply header on
  ("On Tue, Bob wrote:", "-----Original Message-----", "From: ..." after a blank line,
  "在 2026年3月3日，Bob 写道：", "发件人：") are the earlier messages, not this one.
- **Asks** (`ask_of`): a sentence of the new part that ends in a question mark (? or ？), or that
  makes a request: English "please <verb>" opening a clause (not "X, please." closing an
  answer), "could/can/would/will you", "let me know", "I need you to",
  "kindly"; Chinese 请, 麻烦, 能否, 能不能, 可不可以, 可以…吗, 是否, 帮我, 告诉我, or a sentence
  ending in 吗/呢 (请, 麻烦 and 帮忙 as verbs: not in 申请/邀请, not "太麻烦了" or
  "谢谢你的帮忙"); also without either (measured on bench/data|check/plans_asks.jsonl by
  bench/train_plans.py): a need of the reader's work ("I need your final headcount by Wednesday",
  "your sign-off is needed", "still waiting on your approval"), a bare imperative opening the
  sentence ("Send over the invoice"), 给我/发我, 记得, 别忘了, 等你, 要你, a 把-sentence with no 我
  before it, one ending in 一下 or 吧. Courtesies are not requests: "please find attached", "please see below",
  "please ignore", "please note", "thanks in advance", 请查收, 请见附件.
- **Promises** (`promise_of`): a sentence of the person's own new part where they commit to do
  something: English "I'll", "I will", "I'm going to", "I'm gonna", "I shall", "we'll", "we will",
  "let me get back", "will get back", "will send"; Chinese 我会, 我来, 我将, 我们会, 我马上, 我稍后,
  我回头, 回头我, 我明天, 我今天, 我下周, 保证; not when negated ("I won't", "I can't").
- **Due times** (`due_in`): the first date of the sentence that lies ahead of the message's Date
  (resolved with it as reference time, daemon/memory/dates/__init__.py): a future one, or a present one
  with a time of day ("today at 5pm"); "this week" said on a Tuesday names no due time.

Mail sent to a list asks nothing: its last lines hold an opt-out ("Unsubscribe", 退订请回复TD,
取消订阅), and "请回复TD" there is the list's, not a person waiting on the reader.

A message that calls something off asks nothing by offering another time ("I have to bail on
tomorrow, next week instead?", "周四去不了了，改天吧？"): nobody waits on that answer.

A message to a group ("各位同事：", "Hi all,") asks only with a question mark or something to send,
answer, fill in or confirm: "请听从指挥有序撤离" in a fire-drill notice asks nothing of this reader.

The first matching sentence wins (a greeting question opening the mail gives way to a later ask);
a sentence is cut to 300 characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, time
from zoneinfo import ZoneInfo

from daemon.memory.dates import only_a_clock, resolve_dates
from daemon.memory.dates.hant import simplified
from daemon.state.mail_words import foreign, reader

MAX_SENTENCE = 300

_REPLY_HEADER = re.compile(
    r"^(on .{3,200}wrote:\s*$|-{2,}\s*original message\s*-{2,}|-{2,}\s*forwarded message\s*-{2,}"
    r"|在.{0,200}写道[:：]\s*$|发件人[:：]|from:\s.+@)",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(r"^(--|__)\s*$")
# a parenthesis is part of its sentence, whatever it holds: "the $18 payment (via QKR!) by Tuesday 5pm"
# (a dot between digits is a clock's or a number's, "at 10.30"; "kl. 10" is Scandinavian "at 10",
# "plkst. 10" Latvian)
# (and the dot of a day of the month is no sentence end: "onsdag 29. mars kl. 11.15", "am 29. März")
# (nor the dot of a short abbreviation before a figure, a comma or a bracket — "кв. 41", "2026 г., з
# 13:00", "kovo 29 d. (trečiadienį)" —, of a year's letter before the month, "2028 m. kovo", or of a
# street's word before its name: "вул. Сурганава", "ul. Marszałkowska", or of a title before a
# name: "with Dr. Anna Sorensen on Wednesday", "Sr. Ma")
_SENTENCE = re.compile(
    r"(?:\([^()\n]{0,80}\)|(?<=\d)\.(?=\d)|\b(?:[Kk]l|plkst)\.\s*(?=\d)"
    r"|\b[a-zа-яё]{1,3}\.(?=[ \t]*(?:\d|,|\())|\b(?:godz|hod|str|tel|ulic)\.(?=[ \t]*\d)|(?<=\d[ \t][a-zа-яё])\.(?=[ \t]+[a-zа-яёą-ž])|\b(?:ул|вул|пр|просп|пл|бул|пер|ul|al|pl|os|str)\.(?=[ \t]+\w)"
    r"|\b(?:Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Sr|Sra|Srta|Hr|Fr|Mme|Mlle)\.(?=[ \t]+[A-ZÀ-ÝА-Я])"
    r"|\b[0-3]?\d\.(?=[ \t]+(?:[a-zà-žа-яё]|(?:Jan|Feb|M[äa]r|Apr|Mai|Jun|Jul|Aug|Sep|Okt|Nov|Dez)))"
    # ... and a date written day. month. with spaces, as Slovene, Czech or German mail does: "22. 10. 2026"
    r"|\b[0-3]?\d\.[ \t]*[01]?\d\.(?=[ \t]*\d)"
    # ... and a year with the dot Croatian, Serbian or Hungarian give it, the sentence going on in
    # small letters: "na četvrtak, 5. ožujka 2026. u 10:15 sati"
    r"|\b(?:19|20)\d\d\.(?=[ \t]+[a-zà-žа-яё])"
    r"|[^.!?。！？\n])+[.!?。！？]*|[.!?。！？]+"
)
_COURTESY = re.compile(
    r"\b(please (find|see|note|ignore|disregard|excuse)|thanks in advance|thank you in advance)\b|请查收|请见附件|请参阅附件",
    re.IGNORECASE,
)
_REQUEST_EN = re.compile(
    r"\b(could you|can you|would you|will you|would it be possible|let me know|"
    r"i need you to|kindly|do you mind|are you able to)\b",
    re.IGNORECASE,
)
# "please" asks when it opens a clause with a verb after it ("Please send ..."), not when it
# closes an answer ("The lake one, please.")
_PLEASE = re.compile(r"(^|[,;:]\s*)(please|pls)\s+\w", re.IGNORECASE)
# 请 / 麻烦 / 帮忙 ask as verbs only: not inside 申请, 邀请 (an application, an invitation), not
# 麻烦 as an adjective ("太麻烦了"), not 帮忙 as a noun closing a sentence ("谢谢你的帮忙！")
_REQUEST_ZH = re.compile(
    r"(?<![申邀聘宴恳回敬])请|麻烦(?![的了啊呀吧事死]|[。！!，,？?\s]|$)|能否|能不能|可不可以|可否|是否"
    r"|帮我|(?<![的谢])帮忙(?![！!。.~]*$)|告诉我|需要你|希望你"
)
_RSVP = re.compile(r"^going\s*(?:\([^()]*\))?\s*\?\s*$", re.IGNORECASE)
_QUESTION_END_ZH = re.compile(r"[吗呢嘛][\s。.!！~]*$")
# Asks without a question mark or "please": a need of the reader's work ("I need your final
# headcount by Wednesday", "your sign-off is needed", "still waiting on your approval"), a bare
# imperative opening the sentence ("Send over the invoice", "Remember to bring your ID"), a polite
# conditional ("it would be great if you could"); Chinese 给我/发我 (to me), 记得, 别忘了, 等你,
# 要你, 差你的, a sentence opening with 把 and no 我 before it, or ending in 一下 / 吧.
_NEED_EN = re.compile(
    r"\b(?:i|we)(?:'ll|’ll| will| still| really)? (?:need|want|require)\b(?=.*\b(?:your|you to|from you|back|by|"
    r"before|until|on my desk)\b)|\b(?:need|want|waiting (?:on|for)|still need) your\b|"
    r"\byour (?:\w+[\s-]?){1,6}(?:is|are) (?:needed|required|due|overdue|missing)\b|"
    r"\b(?:would be (?:great|good|helpful|nice) if you|appreciate it if you|would love your|would appreciate your)\b|"
    # the polite conditional is a request: "If you could send the figures by Friday, that'd be great"
    r"^(?:so\s+|and\s+)?if you (?:could|would)\b(?! like)",
    re.IGNORECASE,
)
_IMPERATIVE_EN = re.compile(
    r"^(?:(?:just|also|and|so|then|now)\s+)?(?:send|forward|bring|reply|respond|fill|return|submit|confirm|check|"
    r"review|sign|book|make sure|remember to|don'?t forget|do not forget|get back|drop me|let us know|let me know|"
    r"call|email|e-mail|ping|share|update|add|pay|join|tell|give|hand in|upload|approve|schedule|print|"
    # (a verb joined by a hyphen is a noun: "Check-in closes 45 minutes before departure")
    r"have (?:the|your|it|them|this)|put|pick up|reserve|register|sort out|take care|follow up)\b(?![-‐])",
    re.IGNORECASE,
)
_NEED_ZH = re.compile(
    r"(?:给|发|交|转|回|告诉|跟)我(?![们的])|给到我|放到我|发我|回我|(?<!我)记得|别忘了|不要忘了|务必|赶紧|尽快|抓紧"
    r"|等你|要你|差你|你也来|你们来|你来|还没交|需要你|发过来"
    r"|(?:之前|以前|前)[，,]?我?(?:需要|要)|前(?:回复|交|填|提交|发)"
)
_IMPERATIVE_ZH = re.compile(
    r"^[^我他她]{0,10}?把.{1,20}?(?:交|填|还|带|发|给|订|改|签|回|核对|确认|准备)|一下[。！!~]*$|(?<!好)吧[。！!~]*$"
)
# What asks nothing of this reader now: a standing instruction for a case the reader may or may
# not be in ("If you need to reschedule, please call", "To cancel, reply STOP", "如需改期请来电"),
# and a prohibition, which asks that nothing be done ("Please do not eat for 4 hours before your
# scan", "请勿回复本邮件") — but "don't forget to send …" asks that something be done.
_STANDING_EN = re.compile(
    r"^(?:(?:if|should|in case|whenever)\s+you\s+(?:ever\s+)?(?:need|want|wish|would like|'d like|’d like|have|"
    r"require|prefer|are unable|cannot|can't|can’t)\b"
    r"|to\s+(?:reschedule|cancel|change|amend|modify|rebook|unsubscribe|opt out|make (?:any )?changes)\b"
    r"|(?:please\s+)?(?:do not|don't|don’t|dont|never)\s+(?!forget\b|miss\b|mind\b)"
    # ... or what to bring or wear to the appointment, or when to arrive: done there, not answered
    # ("Please bring the signed quotation.", "Please arrive 10 minutes early")
    r"|(?:please\s+)?(?:remember\s+to\s+)?(?:bring|wear|arrive|park)\b"
    # ... or what to have at hand there, or ready to show there ("Please have your ID handy", "keep
    # the card on hand", "have the figures ready to share on screen"; not "have the budget ready by
    # Thursday", a thing to do by a time)
    r"|(?:(?:please|kindly)\s+)?(?:remember\s+to\s+)?(?:have|keep)\b[^.!?]{0,60}?"
    r"\b(?:handy|on hand|to hand|at hand|with you|nearby|ready\s+(?:to\s+(?:share|show|present|walk\s+\w+\s+through)"
    r"|for\s+(?:the|our|your|this)\s+(?:call|meeting|session|visit|appointment|interview|presentation)))\b"
    # ... or how to join it ("Join Zoom Meeting", "Click here to join the Teams call")
    r"|(?:join|click\s+(?:here\s+)?to\s+join)\s+(?:the\s+|our\s+|with\s+)?(?:zoom|microsoft\s+teams|teams|webex"
    r"|google\s+meet|skype|video)\b"
    # ... or what to read before it ("Please skim the SOW beforehand"): done, not answered
    # (not when it asks for something back too: "review the draft before the meeting and send me comments")
    r"|(?![^.!?]*\b(?:send|reply|let (?:me|us) know|get back|confirm|share|comment|feedback)\b)"
    r"(?:please\s+)?(?:skim|read|look over|look through|go through|review|have a look at)\b[^.!?]{0,80}?"
    r"\b(?:beforehand|before the (?:meeting|call|session|kick-?off|workshop)|ahead of (?:the|our|time))"
    # ... or for the case that what was proposed does not suit ("If this time doesn't work,
    # please call us", "Should Monday not suit you, …")
    r"|(?:if|should|in case)\s+(?:this|that|the|it|these|those|\w+day)\b[^.!?]{0,30}?"
    r"\b(?:doesn't|doesn’t|does not|don't|don’t|do not|won't|won’t|will not|isn't|isn’t|is not|can't|can’t|cannot|not)"
    r"\s+(?:work|suit|fit|convenient|possible)\b)",
    re.IGNORECASE,
)
# a reply asked for only in a case ("Reply to this email only if Monday doesn't work for you")
_ONLY_IF_EN = re.compile(r"\bonly\s+(?:if|when|in case)\b", re.IGNORECASE)
_STANDING_ZH = re.compile(
    r"^(?:如需|如有|若需|若有|如要|如想|如欲|如果需要|如果有|如您|若您|倘若|请?勿|请?不要(?!忘)|请?别(?!忘)"
    r"|请?(?:记得)?(?:带上|带好|携带|自备|提前.{0,8}到))"
)
# a word that opens a line as its field's label is no verb ("Return: Fri 21 Aug PER 13:10"):
# what follows the label is read on its own ("Action needed: please sign by Friday" still asks)
_LABEL = re.compile(r"^[\w -]{1,20}:(?!\d)\s*")
_PROMISE_EN = re.compile(
    r"\b(i'll|i’ll|i will|i am going to|i'm going to|i’m going to|i'm gonna|i shall|we'll|we’ll|we will|"
    r"let me get back|will get back|will send|will share|will follow up)\b",
    re.IGNORECASE,
)
_PROMISE_ZH = re.compile(
    r"我会|我来|我将|我们会|我马上|我稍后|我回头|回头我|我明天|我今天|我下周|我这周|保证"
)
_NEGATED_EN = re.compile(r"\b(i won't|i will not|i'll not|i can't|i cannot)\b", re.IGNORECASE)


def fresh_text(text: str) -> str:
    """The part of a message its sender wrote now: no quoted lines, no quoted earlier messages."""
    kept: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if _REPLY_HEADER.match(stripped) or _SIGNATURE.match(line.rstrip()):
            break
        if stripped.startswith(">"):
            continue
        kept.append(line)
    return "\n".join(kept).strip()


_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The sentences of `text`; links are left out first (a query string's '?' asks nothing)."""
    return [s.strip() for s in _SENTENCE.findall(_URL.sub(" ", text)) if s.strip(" \t.!?。！？")]


def _cut(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[: MAX_SENTENCE - 1] + "…"


def asks(sentence: str) -> bool:
    """Whether one sentence asks something of its reader (the rule in the module docstring)."""
    s = sentence.strip()
    if not s:
        return False
    if _RSVP.match(s):
        return False  # a calendar invitation's own "Going? Yes - Maybe - No": its buttons answer it
    if s.endswith(("?", "？")) or "?" in s or "？" in s:
        return True
    s = _LABEL.sub("", s, count=1)
    if _COURTESY.search(s) or _STANDING_EN.match(s) or _STANDING_ZH.match(s) or _ONLY_IF_EN.search(s):
        return False
    return bool(
        _REQUEST_EN.search(s)
        or _PLEASE.search(s)
        or _REQUEST_ZH.search(s)
        or _QUESTION_END_ZH.search(s)
        or _NEED_EN.search(s)
        or _IMPERATIVE_EN.search(s)
        or _NEED_ZH.search(s)
        or _IMPERATIVE_ZH.search(s)
    )


# A notice to a group ("各位同事：", "Hi all,", "Dear team") instructs everyone ("请有序撤离",
# "please use the side entrance"); it asks this reader for something only with a question or a
# thing to hand in or answer.
_TO_GROUP = re.compile(
    r"^\s*(?:(?:hi|hello|dear|hey)\s+(?:all|everyone|everybody|team|folks|colleagues)\b|all,|team,|"
    # ("各项目部：", "各部门：", "各单位：": the offices a notice goes to)
    r"各位|各[\u4e00-\u9fff]{1,6}[：:]|大家好|全体|诸位|亲爱的同事们|同事们)",
    re.IGNORECASE,
)
_DELIVER = re.compile(
    r"\b(?:send|reply|respond|submit|return|fill|confirm|rsvp|sign|upload|let (?:me|us) know|get back)\b|"
    r"回复|提交|交(?:到|给|回|上)|填写|填好|确认|报名|发给|发到|签字",
    re.IGNORECASE,
)


# A message that calls something off ("I have to bail on tomorrow", "周四去不了了") and offers
# another time in a question ("next week instead?", "rain check?", 改天吧？) leaves nobody
# waiting on the reader: the offer is the cancellation's courtesy, not an ask with a time to it.
_CALLS_OFF = re.compile(
    r"\b(?:bail(?:ed|ing)?|flak(?:e|ed|ing)|cancel+\w*|call(?:ed|ing)? (?:it )?off|can['’]?t make|cannot make"
    r"|won['’]?t make|have to skip|(?:is|'s|’s) off|not going to make|rain check)\b"
    r"|取消|去不了|来不了|不去了|鸽|来不成|泡汤",
    re.IGNORECASE,
)
_OTHER_TIME = re.compile(
    r"\b(?:instead|next (?:week|time|\w+day)|another (?:day|time|week)|some other (?:day|time)|rain check"
    r"|reschedule)\b|改天|下次|下周|换个时间|改到|别的时间",
    re.IGNORECASE,
)


def _offers_another_time(sentence: str, fresh: str) -> bool:
    return bool(_CALLS_OFF.search(fresh) and _OTHER_TIME.search(sentence) and not _DELIVER.search(sentence))


# The opt-out line that closes mail sent to a list ("Unsubscribe | View in browser", "退订请回复TD",
# "取消订阅"): nobody there waits on this reader's answer, whatever its sentences say ("请回复").
_OPT_OUT = re.compile(r"\b(?:unsubscribe|opt[- ]out|reply stop)\b|退订|退訂|取消订阅|取消訂閱", re.IGNORECASE)


def sent_to_a_list(text: str) -> bool:
    """The message ends with a list's opt-out line (within its last three lines)."""
    tail = [line for line in text.splitlines() if line.strip()][-3:]
    return any(_OPT_OUT.search(line) for line in tail)


# the mailbox a shop or a list sends its campaigns from ("offers@talabat…", "deals@…", "news@…",
# "nyhetsbrev@…", "staffnews@…"): the words for a newsletter and an offer, in the languages met,
# as the whole name or one part of it. Not "sales@", "events@", "hello@", "info@": people write
# from those and ask for things ("I need your final headcount by Wednesday at noon").
_CAMPAIGN_BOX = re.compile(
    r"(?:^|[._+-])(?:news(?:letters?)?|nyhetsbrev|nieuwsbrief|infolettre|boletin|deals?|offers?|ofertas?|"
    r"offres?|angebote?|promos?|promotions?|promociones|sale|marketing)(?:$|[._+-])"
    # (a newsletter's name glued to what it is: "staffnews", "clubnewsletter")
    r"|[a-z]news(?:letters?)?$",
    re.IGNORECASE,
)


def from_a_campaign_box(sender: str) -> bool:
    """Mail from a campaign mailbox (`_CAMPAIGN_BOX`, read on the address's local part): it waits
    on nobody's answer, whatever its sentences ask ("Use code HALF3 before Thursday midnight")."""
    return bool(_CAMPAIGN_BOX.search(sender.rpartition("@")[0] if "@" in sender else ""))


# an invitation to take up an offer, as a list's update words it ("Register by Friday for our free
# webinar", "Save your seat", 立即报名): nobody waits on this reader's answer to it
_OFFER = re.compile(
    r"^\W*(?:(?:please\s+)?(?:register|sign up|enrol+|join us|join our|save your (?:seat|spot)|reserve your"
    r" (?:seat|spot|place)|book (?:now|your)|claim|redeem|grab|shop|don['’]t miss|get (?:your|\d+%)|rsvp (?:now|here)"
    r"|download|try|watch|read more|learn more))\b"
    r"|^\W*(?:立即|马上|赶快|现在)?(?:报名|注册|预约名额|抢|领取|下载|点击)",
    re.IGNORECASE,
)


def is_offer(sentence: str) -> bool:
    """Whether an ask only invites the reader to take up an offer (a webinar, a sale, a download)."""
    return bool(_OFFER.search(sentence))


# a question that asks the reader to do something ("Can you send me…?"), not one that leads into a
# pitch ("Staying on campus for Thanksgiving?")
_REQUESTS = re.compile(
    r"\b(?:can|could|would|will)\s+(?:you|u)\b|\b(?:send|give|tell|let)\s+me\b|你能|你可以|能不能|可不可以|麻烦|请你",
    re.IGNORECASE,
)


# a message whose replies nobody reads: "This mailbox is not monitored", "Please do not reply to
# this email", "请勿直接回复本邮件"
_NO_REPLY = re.compile(
    r"\b(?:(?:this\s+)?(?:mailbox|inbox|email address|address)\s+is\s+(?:not|un)\s*monitored"
    r"|(?:please\s+)?(?:do\s+not|don['’]t)\s+reply(?:\s+(?:to|directly))?|no-?reply\b|replies\s+(?:to\s+this\s+"
    r"(?:email|message)\s+)?(?:are|will)\s+not\s+(?:be\s+)?(?:read|monitored|answered))"
    r"|请勿(?:直接)?回复|不要(?:直接)?回复|无需回复|此邮件为系统自动发送|本邮件由系统自动发送",
    re.IGNORECASE,
)
# a sentence that says by when: "Complete the form by 31 January", "请于周五前提交"
_DEADLINE = re.compile(
    r"\b(?:by|before|no later than|until|deadline|due)\b|截止|之前|以前|前(?:提交|交|完成|回复)",
    re.IGNORECASE,
)


def ask_of(text: str, model: Callable[[str], bool] | None = None) -> str | None:
    """The first sentence of the message's new part that asks something, or None. `model`
    (`ask_model.reader_for`) reads, as written, the sentences of a mail in neither English nor
    Chinese that the rules do not read as an ask."""
    written = fresh_text(text)
    # the rules are written in Simplified characters; Traditional is read one character for one,
    # and the sentence is quoted as written
    fresh = simplified(written)
    if sent_to_a_list(fresh):
        return None
    notice = bool(_TO_GROUP.match(fresh))
    # replies are not read: nobody waits on an answer, only on what is due by a time
    unread = bool(_NO_REPLY.search(fresh))
    # a mail in another language is read in English words (`mail_words`), quoted as written
    read = reader(fresh)
    said = [read(s) for s in sentences(fresh)]
    other_language = model is not None and foreign(fresh)
    # a question that leads into an offer is the offer's own, and the offer is then optional:
    # "Staying on campus for Thanksgiving? Sign up for the holiday meal plan by November 10."
    pitched = {
        i
        for i in range(len(said) - 1)
        if said[i].rstrip().endswith(("?", "？")) and is_offer(said[i + 1]) and not _REQUESTS.search(said[i])
    }
    pitched |= {i + 1 for i in pitched}
    found: list[tuple[str, str]] = []
    for i, (s, as_written) in enumerate(zip(said, sentences(written), strict=True)):
        if _offers_another_time(s, fresh) or i in pitched or (unread and not _DEADLINE.search(s)):
            continue
        # (the model's ask must say by when: alone, it reads a clinic's "we confirm your visit" or
        # "bring your ID" as asks; what is due by a date is what a follow-up is for)
        asked = asks(s) or (
            other_language
            and model is not None
            and names_a_date(s)
            and not _IF_OPENS.match(as_written)
            and model(as_written)
        )
        if asked and (not notice or "?" in s or "？" in s or _DELIVER.search(s)):
            found.append((s, as_written))
            # a short question opening the mail is a greeting ("Hi Sam, how are you?", "Olá,
            # Hannah, tudo bem?") when another sentence asks something: that one is the ask
            if not (
                len(found) == 1
                and i == 0
                and _GREETING_QUESTION.fullmatch(s.strip())
                and not _REQUESTS.search(s)
                and not _ASKS_LEAVE.search(s)
            ):
                break
    if not found:
        return None
    return _cut(found[-1][1])


# a sentence that opens with "if" in its own language is a condition, whatever it goes on to allow
# ("Jei nurodytu laiku atvykti negalite, vizito laiką galite pakeisti … iki kovo 28 d.": if you
# cannot come, you can change it by Tuesday) — the ask model read such offers as asks (not
# Norwegian "Si fra …", "let me know …", an ask: found on the strangers' foreign ask set)
_IF_OPENS = re.compile(
    r"\s*(?i:jei|jeigu|je[sś]li|je[zż]eli|если|якщо|калі|wenn|falls|si(?!\s+i?fra\b)|se|indien|om|hvis|jos|kui|e[gğ]er"
    r"|jika|kalau|apabila|ikiwa|kama|εάν|εαν|αν|dac[aă]|pokud|ak|ako|ha|إذا|اذا|اگر|אם|अगर|যদি|nếu|neu|kung)\b"
    r"|\s*(?:ถ้า|如果|若)"
)


# a question of a few words after a greeting ("Hi Sam, how are you?", "Olá, Hannah, tudo bem?",
# "Hello Priya, hope the move went ok?", "嗨，最近怎么样？") — not one that asks leave or a favour
# ("Hey Mel, is it ok if I bring Priscilla?", "Hi Omar, mind if Lucy joins us?": `_ASKS_LEAVE`)
_GREETING_QUESTION = re.compile(
    r"(?i:hi|hello|hey|hiya|dear|ol[aá]|oi|hola|bonjour|salut|ciao|hallo|hej|hei|moi|ahoj|cze[sś][cć]|zdravo"
    r"|merhaba|halo|hai|xin\s+ch[aà]o|привет|здравствуйте|שלום|مرحبا|嗨|你好|您好|哈喽|안녕하세요|こんにちは|สวัสดี)"
    r"\b[^?？]{0,40}[?？]"
)
_ASKS_LEAVE = re.compile(
    r"\b(?:if|mind|any\s+chance|(?:can|could|may|might|should|shall|would|will)\s+(?:i|we|you|u)"
    r"|do\s+you\s+(?:want|need|have|mind)|okay\s+to|ok\s+to|alright\s+to|fine\s+to)\b"
    r"|可以|可不可以|能不能|方便|介意",
    re.IGNORECASE,
)


def names_a_date(sentence: str) -> bool:
    """Whether a sentence (read in English words) names a date or a time: any, ahead or not."""
    return bool(resolve_dates(sentence, _ANY_DAY, _UTC))


_UTC = ZoneInfo("UTC")
_ANY_DAY = datetime(2026, 1, 1, tzinfo=_UTC)  # what the date is read against does not matter here


def promise_of(text: str) -> str | None:
    """The first sentence of the message's new part where its sender commits to something."""
    for s in sentences(fresh_text(text)):
        if _NEGATED_EN.search(s):
            continue
        if _PROMISE_EN.search(s) or _PROMISE_ZH.search(s):
            return _cut(s)
    return None


# a date said as a deadline: "by Wednesday 5pm", "no later than Friday", "於週五中午前", "周四之前"
_BY_BEFORE = re.compile(r"\b(?:by|before|until|till|no later than|due)\s*$", re.IGNORECASE)
_BY_AFTER_ZH = re.compile(r"^\s*(?:之前|以前|前|为止|為止)")


def ask_due(text: str, ask: str, at: datetime, tz: ZoneInfo) -> datetime | None:
    """By when the mail's ask (`ask`, a sentence of `text`) is to be answered: its own date, else
    the deadline of another sentence of the mail that asks by a date. "we still need the
    following papers: …" and then "please send them by Friday 12:00" are one ask, due Friday;
    without the second sentence's date the follow-up came after the deadline had passed."""
    read = reader(text)
    own = due_in(read(ask), at, tz)
    if own is not None:
        return own
    for sentence in sentences(fresh_text(text)):
        said = read(sentence)
        if _DEADLINE.search(said) and asks(said):
            due = due_in(said, at, tz)
            if due is not None:
                return due
    return None


def due_in(sentence: str, at: datetime, tz: ZoneInfo) -> datetime | None:
    """The date of `sentence` that lies ahead, resolved against the message's Date `at`: the one
    said as a deadline when there is one ("the Oct 27 offsite by Wednesday 5pm" is due on
    Wednesday; "下週三的校外教學…於週五中午前" on Friday), else the first."""
    found = resolve_dates(sentence, at, tz)
    ahead = [
        m
        for m in found
        if m.direction == "future" or (m.direction == "present" and m.has_time and m.value >= at)
    ]
    deadline = next(
        (
            m
            for m in ahead
            if _BY_BEFORE.search(sentence[max(0, m.start - 16) : m.start])
            or _BY_AFTER_ZH.match(sentence[m.end :])
        ),
        None,
    )
    if not ahead:
        return None
    chosen = deadline or ahead[0]
    if not chosen.has_time:
        # one day and one clock in one sentence are one moment, whatever stands between them: "17-ны
        # өдөр (Лхагва гараг) 15:00 цагт", "12 Mart 2027 Cuma günü saat 10:15'te", where the rules
        # read the day (once or twice) and leave the clock alone, or read it as today's
        # (every date the sentence names counts, the past ones too: "instead of March 8 at 10:00, on
        # Friday" leaves Friday without a clock)
        day = chosen.value.astimezone(tz).date()
        days = [m for m in ahead if not m.has_time and m.value.astimezone(tz).date() == day]
        if all(m in days or only_a_clock(m) for m in found):
            outside = sentence
            for m in sorted(days, key=lambda m: -m.start):
                outside = outside[: m.start] + " " + outside[m.end :]
            clocks = set(_LONE_CLOCK.findall(outside))
            if len(clocks) == 1:
                [(hour, minute)] = clocks
                return datetime.combine(day, time(int(hour), int(minute)), tzinfo=tz)
    return chosen.value


# a clock in 24-hour form, as `mail_words` writes a clock of another language ("15:00")
_LONE_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")


_AT_END = re.compile(r"\s*\bat\s*$", re.IGNORECASE)


def first_clock(sentence: str) -> tuple[int, int] | None:
    """(hour, minute) of the first clock written in 24-hour form in `sentence` ("at 13:00"), or None;
    None too when it is a deadline's ("send the form by 17:00", "17:00前"): an hour to be done by is
    no hour to be somewhere at."""
    m = _LONE_CLOCK.search(sentence)
    # (the word lists write a clock of another language as "at 17:00": "bis spätestens 17 Uhr" is "by at 17:00")
    if m is None or _BY_BEFORE.search(_AT_END.sub("", sentence[max(0, m.start() - 16) : m.start()])):
        return None
    if _BY_AFTER_ZH.match(sentence[m.end() :]):
        return None
    return int(m.group(1)), int(m.group(2))
