"""plans: is a dated sentence the person's own plan, something to remind them of?

A sentence with a date ahead is not always an appointment of the speaker's. These readings are
not, and each has a rule (English and Chinese), measured on `bench/data/plans_asks.jsonl` (tuned)
and `bench/check/plans_asks.jsonl` (kept apart) by `bench/train_plans.py`:

- **a question** ("Is the pharmacy open on Sunday?", "周六的集市几点开始？") or a request to the
  assistant ("recommend a place for Saturday", "推荐个周末能去的地方"): it asks, it plans nothing;
- **venting** about a day or a load ("Monday again tomorrow, ugh", "加班到半夜，累死了"): a complaint,
  not an errand; the same words with a plan in them ("ugh, dentist at 3 tomorrow") lose too,
  which is the price of never quoting a complaint back as a reminder;
- **someone else's appointment** ("my partner has a check-up on Thursday", "室友明天去看牙",
  "my manager is on holiday for two weeks"): a third person is the subject and the person
  themself is not in it ("I'm driving her" keeps it);
- **a hypothetical or a wish** ("if I ever go to Rome…", "要是每周五都放假就好了");
- **done already** in the clause that names the day ("I already went to the bank this morning";
  not "周六的火车，票已经买好了", where 已经 belongs to the ticket, a clause of its own);
- **the world's schedule** ("the library closes early on Saturdays", "新手机下周四发布") and
  habits ("I usually run on Saturdays"), and an empty calendar ("no meetings tomorrow");
- **the day's routine** (getting up, the commute, a working day: "work tomorrow", 明天还得早起挤地铁).

Everything else with a date ahead is a plan: precision of the reminder matters, but a forgotten
appointment costs more than one reminder too many, so the rules only say no on a cue.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from daemon.memory.dates import DateMention, resolve_dates
from daemon.memory.dates.cues import EMOJI, tense
from daemon.memory.dates.hant import simplified
from daemon.memory.models.features import MOVED_TO_TIME as _MOVED_TO_TIME
from daemon.memory.models.features import shared_words
from daemon.memory.types import ItemView
from daemon.predict.base import what
from daemon.predict.plan_text import (
    PEOPLE_ZH,
    dated_sentences,
    headline,
    names_a_thing,
    plan_part,
    ranks_only,
    sentences,
    told_on,
)

# clause breaks; in Chinese chat a space between two characters is one ("…送别会 新宿的鸟贵族 位子我订的")
_SPLIT = re.compile(
    # (not the point or colon of a clock: "7:45 就要到", "half past at 7.45")
    r"(?:[,，;；。!！?？：\n]|[.:](?!\d)|(?<!\d)[.:])+|\s+(?:but|and then|so)\s+|但是|不过|可是|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
    rf"|\s*[{EMOJI}]+\s*"  # an emoji ends a clause as a comma does
)
_DASH = re.compile(r"\s+[—–]+\s+")
# a clause that names a day ahead: a weekday, tomorrow, 周四, 明天 (a clock alone may be of a
# past account: "night shift last night was brutal, 3 codes before 4am")
_DATED = re.compile(
    r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b|\b(?:tomorrow|tmrw|tonight)\b"
    r"|[周週][一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|明天|后天|今晚",
    re.IGNORECASE,
)

_QUESTION = re.compile(
    # an auxiliary first asks ("Can you…"), its negation does not ("Can't wait for Friday")
    r"[?？]\s*$|^(?:is|are|does|do|did|can|could|will|what|when|where|which|who|how)\b(?!['’]t)"
    r"|[吗呢么]\s*[。.]?\s*$"
    # asked with its alternative after it: "要穿正式一点吗 还是 smart casual 就行"
    r"|[吗呢]\s*[，,]?\s*还是"
    r"|几点|什么时候|哪天|多少"
    # a request to the assistant asks for something, it plans nothing ("推荐个周末能去的地方",
    # "suggest somewhere for Saturday"); "remind me…" is a plan, and not in it
    r"|^(?:please\s+)?(?:recommend|suggest|find me|give me|any (?:ideas|tips|recs|suggestions))\b"
    r"|^(?:请|麻烦)?(?:推荐|求推荐|帮我(?:找|推荐|查|想)|给我(?:推荐|找)|有没有(?:推荐|什么))",
    re.IGNORECASE,
)

_VENT_EN = re.compile(
    r"\b(ugh+|urgh|sigh|dread\w*|again tomorrow|another (?:early|\d|\w+ (?:meeting|day|week))|can'?t come soon enough|"
    r"the worst|killing me|so done|i'?m done|who even|zombie|exhausted|knackered|so tired|burn(?:ed|t) out|hate|"
    r"nervous|anxious|stressed|can'?t believe it'?s|back to the grind|said no one|kill me|fml|wish me luck no"
    r"|(?:be|is|'s)\s+(?:a|an|such\s+a)\s+(?:nightmare|disaster|mess|shitshow|circus)|brutal|hellish|torture)\b",
    re.IGNORECASE,
)
_VENT_ZH = re.compile(
    r"唉|哎|头疼|头大|受不了|累死|烦死|烦人|要命|不想(?:面对|上班|去)|好不想|焦虑|紧张|怎么还不|好漫长|废了|"
    r"谁排的|崩溃|心累|又是周|又要|又得|想哭|郁闷|真烦|讨厌|特别累|好累|太累|又熬|熬到|熬夜|加班到|"
    r"不好了|撑不住|扛不住|又是|窒息|会谢|绝了|人生好难|好难|顶不住|无语"
)

# the speaker's circle: a sentence about one of them is their appointment unless the speaker is in it
_PEOPLE_EN = (
    r"partner|wife|husband|boyfriend|girlfriend|fianc[ée]e?|spouse|mom|mum|mother|dad|father|parents?|"
    r"sister|brother|son|daughter|kids?|child|children|baby|grandma|grandpa|grandmother|grandfather|"
    r"aunt|uncle|cousin|nephew|niece|friend|roommate|flatmate|housemate|neighbou?r|boss|manager|"
    r"team ?lead|lead|ceo|cto|colleague|coworker|co-worker|teammate|landlord|teacher|doctor|"
    r"client|assistant|intern|director|supervisor|buddy|mate|pal|bestie|bff|"
    # as people call them in chat around the world: a Nigerian boss, a Filipino aunt, a grandmother
    r"oga|hubby|wifey|bae|ma-?ma|pa-?pa|tita|tito|lola|lolo|kuya|nana|granny|gran|abuela|abuelo|oma|opa|"
    r"t[ií]a|t[ií]o|primo|prima|nonna|nonno|mamaw|papaw|mam|amma|appa|ammi|abba|nani|dadi|didi|bhaiya|ouma|oupa"
)
# ... a celebration of theirs, which the family goes to: "tita baby's 60th is on the 24th", "mum's 60th"
_FETE_EN = (
    r"(?:\w+\s+)?(?:\d+(?:st|nd|rd|th)|birthday|bday|party|wedding|anniversary|debut|celebration|despedida)\b"
)
# ... of whom no "my" is needed: "boss is in cabo all next week", "mama's check-up is on tuesday"
_KIN_EN = (
    r"boss|oga|mom|mum|mama|mother|dad|papa|father|grandma|grandpa|granny|gran|nana|wife|husband|hubby|"
    r"wifey|bae|tita|tito|lola|lolo|kuya|abuela|abuelo|oma|opa|roommate|flatmate|housemate"
)
# a capitalised word that is no one's name: a day, a month, what a plan is called, the speaker
_NOT_A_NAME = (
    r"(?!(?:I|I'm|I've|I'll|I'd|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|"
    r"March|April|May|June|July|August|September|October|November|December|Dinner|Lunch|Breakfast|Got|"
    r"Need|Remind|Tomorrow|Today|Tonight|Next|This|Our|My|The|Call|Meeting|Flight|Moving|Picking|Heading|"
    r"Catching|Cooking|Team|Final|Piano|Gym|Yoga|Haircut|Doctor|Vet|Standup|Sprint|Demo|Wedding|Book|"
    r"Concert|Parent|Performance|Allergy|Blood|Mechanic|Flying|Drop|"
    # no name: the speaker or everyone, with the apostrophe chat leaves out ("we got tickets",
    # "ive got the dentist"), and the adverbs before a verb ("finally got a slot", "just got a call")
    r"We|You|U|Ive|Im|Ill|Id|Weve|Were|Everyone|Everybody|Nobody|Somebody|Someone|It|That|There|Who|"
    r"Just|Finally|Also|Already|Still|Only|Really|Actually|Eventually|Literally|Luckily|Thankfully|"
    r"Somehow|Even|Now|Then|Never|Ever)\b)"
)
_THIRD_EN = re.compile(
    rf"^(?:(?:my|our|the)\s+(?:\w+\s+)?(?:{_PEOPLE_EN})(?:'s|’s)?\b|(?:{_KIN_EN})(?:(?:'s|’s)(?!\s+{_FETE_EN}))?\b(?!(?:\s+[^\W\d_]+)?['’]s\s+{_FETE_EN})|(?:he|she|they)\b|"
    + _NOT_A_NAME
    + r"[A-Z][^\W\d_]+(?:'s|’s)?"
    # a name told who it is: "Léa (flatmate) has…"
    r"(?:\s*\([^()]{1,30}\))?\s+"
    r"(?:has|had|got|will|flight|birthday|party|wedding|interview|appointment|exam|surgery|"
    r"lands|leaves|arrives|moves|starts|goes|gets|needs|wants|"
    r"(?:is|'s|’s)\s+(?:\w+ing|off|away|out|on (?:leave|holiday|vacation)|in hospital))\b"
    # ... or with "have" and a him / her for "his" / "her", as Caribbean English says it: "Dwayne have
    # him interview fi di ground crew job" (not "twins have a soccer game": a plural's "have")
    r"|[A-Z][^\W\d_]+\s+have\s+(?:him|her|dem)\s+\w+"
    # ... or told where they are from, the name written with its capital: "Anand from the science
    # department flies to Kochi", "Inès in my unit sits her test" (not "booked on the air chathams flight")
    + r"|"
    + _NOT_A_NAME
    + r"(?-i:[A-Z])[^\W\d_]+\s+(?:from|in|at)\s+(?:the\s+|my\s+|our\s+)?[^\W\d_]+(?:\s+[^\W\d_]+)?\s+"
    # (verbs of a person, not of the train or bus from somewhere: no "leaves", "takes")
    r"(?:has|had|flies|travels|sits|(?:is|'s|’s)\s+(?:flying|travelling|traveling|sitting|having))\b"
    # "gemma's viewing a flat": the 's is "is", glued to the name
    r"|[A-Z][^\W\d_]+(?:'s|’s)\s+\w+ing\b"
    # someone's person: "kai's teacher is out friday", "jim's mom fell"
    rf"|[^\W\d_]+(?:'s|’s)\s+(?:{_PEOPLE_EN})\b"
    # whoever the subject is, the thing they have is theirs when English says so by its "his",
    # "her" or "their": "my chum marc-andré has his colonoscopy monday", "the twins have their
    # recital" — no list of relations to fall out of (not "I have my", "we've got our")
    # (and what they sit, take or do: "Inès in my unit sits her language test thursday")
    r"|(?!(?:i|we|you|u)\b)(?:[^\W\d_][\w'’.-]*\s+){1,4}?(?:has|have|had|got|(?:has|have|'s|’s|'ve|’ve)\s+got"
    r"|(?:is|are|'s|’s|'re|’re)\s+having|sits|takes|does|writes|attends)\s+(?:his|her|their)\s)",
    re.IGNORECASE,
)
_SELF_EN = re.compile(
    r"(?<!not )(?<!n't )(?<!’t )\b(?:I|I'm|I’m|I've|I’ve|I'll|I’ll|I'd|me|we|we're|we’re|us|let's|myself)\b(?!\s+(?:wife|husband))"
)
_PEOPLE_ZH = PEOPLE_ZH
# a group one works or studies in, or a job, said before a name: "我们组小刘", "翻译小刘", "司机老张"
_THEIR_GROUP_ZH = (
    r"(?:(?:我们|咱们)?(?:组|部门|公司|班|团队|科室|车队|项目组|办公室)"
    r"|翻译|司机|助理|秘书|会计|导游|师傅|律师|同学)"
)
_THIRD_ZH = re.compile(
    # (阿 before a relation is Cantonese for the relation itself: 阿妈, 阿老公)
    # (and by their place among siblings: 二舅, 三姨, 大姐, 幺叔)
    # (a name as Chinese calls people, 小王, 老李, 阿芳 — with where they are from before it, "隔壁铺的阿芳",
    # "楼下的小王", but not the speaker's: "我们组的小王" is still someone else, "我的小组" no name)
    rf"^(?:组里|部门|公司|家里|隔壁|楼下|班上|单位)?(?:我(?:的|们)?\s*(?:{_PEOPLE_ZH})|(?:阿|[大二三四五六七幺])?(?:{_PEOPLE_ZH})|他|她|他们|她们|"
    r"(?:(?![我咱])[\u4e00-\u9fff]{1,6}的)?[小老阿][\u4e00-\u9fff](?![点时])|"
    # ... or with their group or their job before it, no 的 between: "我们组小刘", "翻译小刘"
    rf"{_THEIR_GROUP_ZH}\s*[小老阿][\u4e00-\u9fff](?![点时])|"
    # ... and in English, as Chinese chat mixes it in ("my mum 星期四去医院做体检")
    rf"(?i:my\s+(?:{_PEOPLE_EN})\b)|"
    rf"[\u4e00-\u9fff]{{1,3}}的(?:{_PEOPLE_ZH})|(?:我们|公司|部门)(?:的)?(?:{_PEOPLE_ZH})"
    # a surname and a title: 王老师, 张医生, 刘总, 李阿姨
    r"|[\u4e00-\u9fff](?:老师|医生|大夫|总|经理|阿姨|叔叔|主任|教授))"
)
# the speaker as a person in the sentence: 我 not followed by a relation (我妈 is the mother)
_SELF_ZH = re.compile(
    # (not asked or pestered: "一直传讯息问我S弯怎么过" — the speaker does nothing there)
    rf"(?<!不是)(?<![问催烦吵])我(?!(?:的|们的)?\s*(?:{_PEOPLE_ZH})|被|们?{_THEIR_GROUP_ZH}\s*[小老阿])|咱|^带(?!着)|^接(?:我|她|他|孩子|人)|^送(?:我|她|他|孩子)"
    # the whole family going or doing, the speaker in it: "全家要一起拜拜" (not "全家都提心吊胆")
    r"|(?:全家|一家人)(?:人)?(?:都)?(?:要|会|得|一起|去|回|出发)"
)

_HYPO_EN = re.compile(
    # ("if" of an embedded question about others is "whether": "i dont even know if they feed you";
    # not "not sure if i'll go", the speaker's own doubt)
    r"\b(if(?<!know if)(?<!wonder if)(?<!see if)(?<!check if)(?<!idea if)(?<!clue if)(?<!dunno if)(?<!sure if)"
    r"|(?:know|wonder|see|check|idea|clue|dunno|sure)\s+if(?=\s+(?:i|i'?ll|i'?m|i'?d|we|we'?ll)\b)"
    r"|unless|would|i'?d (?:love|like)|someday|some day|one day|imagine|in theory|dream of|"
    r"wish|hypothetically|what if|might|could have|would be nice)\b",
    re.IGNORECASE,
)
# an "if" that opens a clause of its own after the plan's day was told is about what may go wrong
# on the way, not a condition on the plan: "we sail wednesday at 7:15am …, my aunties will skin me
# if I miss the boat", "周六早上七点的船，要是赶不上就完了" (an "if" before the day, or in its clause,
# still makes a wish of it: "if I ever get to Rome next summer", "I'll go saturday if it's dry")
_CONDITION_WORDS = frozenset(("if", "unless", "要是", "如果", "假如", "万一"))


def _of_what_may_go_wrong(text: str, cue: re.Match[str]) -> bool:
    day = _DATED.search(text)
    return (
        cue.group(0).lower() in _CONDITION_WORDS
        and day is not None
        and day.end() <= cue.start()
        and _SPLIT.search(text, day.end(), cue.start()) is not None
    )


_HYPO_ZH = re.compile(r"要是|如果|假如|假设|万一|哪天|总有一天|有一天|也许|理论上|的话|就好了|梦想|想象|幻想")

_DONE_EN = re.compile(
    # ("finally" before what is on its way is relief, not done: "we're finally signing for the deeds on
    # wednesday")
    r"\b(already|finally(?!\s+(?:\w+ing|going\s+to|gonna)\b)|yesterday|last (?:week|month|night|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|ago|earlier today|this morning|went|had|did|finished|submitted|skipped|was great|"
    r"went fine|it went|(?:got|came|just)\s+back\s+from)\b",
    re.IGNORECASE,
)
# a plan moved to a time: the move is told in the past or with a groan, the plan is ahead ("had to
# push my haircut to thursday", "ugh, the salon moved my haircut to thursday at 5", "复诊改到下周一")
PLAN_MOVED_EN = re.compile(
    r"\b(?:(?:moved|pushed|shifted|bumped|rescheduled|postponed|brought forward|put off) (?:to|till|until|back)\b|"
    # moved, and the new time told after it with "now": "Gestoría bumped it — Wednesday half eleven
    # now", "they've moved it, thursday 9 now"
    r"(?:moved|pushed|shifted|bumped|rescheduled|changed)\s+(?:it|that|this|us|me|them|things)\b[^.!?]{0,40}?\bnow\b|"
    + _MOVED_TO_TIME
    + r")",
    re.IGNORECASE,
)
PLAN_MOVED_ZH = re.compile(r"(?:改|推|挪|换|延|调|提前|推迟|延期|顺延)(?:到|至)")
# an arrangement made: the ticket bought, the slot booked (已经订好了, 已经约上了, 票买好了)
# (Cantonese says 咗 for 了: "車飛已經買咗啦")
# ... in English: "finally booked the dentist for friday", "already got a slot": the relief or the
# "already" is of the booking, the appointment is ahead
_BOOKED_EN = re.compile(
    r"\b(?:finally|already|just)\s+(?:(?:managed|got)\s+to\s+)?(?:booked|book|got|get|made|scheduled|reserved|"
    r"arranged|confirmed|sorted|snagged|grabbed|landed|signed\s+up|registered|enrolled)\b(?!\s+back\b)"
    # ... or said after what was booked: "booked my DOT physical finally, wednesday at 2:40"
    r"|\b(?:booked|scheduled|reserved|arranged|got|made)\s+(?:(?:my|the|a|an|our|his|her|their)\s+)?"
    r"(?:[\w'’-]+\s+){0,3}?(?:finally|at last)\b",
    re.IGNORECASE,
)
_BOOKED_ZH = re.compile(
    # (when it was arranged is the arranging's: "票我上個月就已經搶到了" — the concert is ahead)
    r"(?:(?:上个?月|上周|上礼拜|上星期|昨天|前天|前几天|几天前|刚刚|刚才|早就|老早)(?:就)?)?"
    r"(?:已经|已)?(?:订|买|约|定|预约|预订|安排|报名|挂号|抢)(?:好|到|上)?(?:了|咗)[啦喇]?"
)
_DONE_ZH = re.compile(
    r"已经|过了|完了|做完|开完|昨天|前天|上周|上个月|刚才|刚刚|翘了|交了|取了|吃了|去过|开过|报完"
)

_WORLD_EN = re.compile(
    r"\b(opens?|closes?|closed|launch(?:es)?|comes? out|releases?|is free|are free|run every|runs every|"
    r"forecast|daylight saving|on sale|goes on sale|shuts?|"
    # the clocks change for everyone: "clocks go back tonight", "clocks spring forward sunday"
    r"clocks?\s+(?:go|goes|going|went|spring|springs|fall|falls|fell)\s+(?:back|forward|ahead)|clocks?\s+change|"
    # the weather is the world's, not a plan: "supposed to storm tonight", "typhoon signal 8 tomorrow"
    r"weather|storms?|thunderstorms?|typhoon|hurricane|cyclone|heatwave|snow(?:s|ing)?|"
    r"rain(?:s|ing)?(?!\s+(?:or\s+shine|check))|"
    # ... and the daylight: "it's gonna be light at 8 tomorrow which feels fake"
    r"(?:be|gets?|getting|got)\s+(?:light|dark)|sunrise|sunset|"
    # ... said without its verb: "pitch dark again at 7am, who asked for this"
    r"(?:pitch[- ])?(?:dark|light)\s+(?:again\s+|still\s+)?(?:at|by|till|until|before)\s+\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m)?|"
    # ... and so is the traffic: "the H-1 at 7am tomorrow is gonna be a parking lot"
    r"traffic|gridlock(?:ed)?|(?:be|is|was|'s)\s+(?:a|one\s+big)\s+parking\s+lot)\b"
    # ... a road at an hour, as what the sentence is about: "the ring road at 3pm should be illegal"
    r"|^(?:the\s+)?(?:[\w-]+\s+)?(?:road|freeway|highway|motorway|expressway|interstate|turnpike|bypass)\s+at\s+\d"
    r"|\bevery\s+\d+\s+minutes\b",
    re.IGNORECASE,
)
_WORLD_ZH = re.compile(
    r"开门|关门|闭馆|上线|发布|免费|停课|一班|预报|开售|上映|营业|夏令时|冬令时|校钟|拨快|拨慢|"
    # the weather (天文台 is Hong Kong's weather service; 挂波 / 风球 its typhoon signals)
    r"(?:天气|天文台|气象|台风|挂波|挂[一三八九十]号|风球|暴雨|下雨|下雪|红雨|黑雨|寒潮|降温|高温预警"
    # ... and the traffic ("Marginal 又堵死了", 塞车)
    r"|堵死|堵车|塞车|塞車)"
    # not the weather said as no obstacle: "下雨也照样去" (even if it rains, they go)
    r"(?![^，,。]{0,3}(?:也|都|照样|照常|照去))"
)
_HABIT_EN = re.compile(
    r"\b(usually|every (?:day|week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"always|tend to|(?:on )?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
    r"each week|typically|normally|as usual|as always|like always|same as always)\b",
    re.IGNORECASE,
)
_HABIT_ZH = re.compile(r"一般|每周|每天|每个|通常|总是|平时|经常|往往")
# the day's routine obligations: getting up, the commute, a working day. Said with a day ahead
# they are the day's shape, not an appointment to remind of ("work tomorrow", 明天还得六点半起来挤地铁)
_ROUTINE_EN = re.compile(
    r"\b(?:(?:get|getting|wake|waking) up|alarm|commute|(?:back )?(?:to|at) work|work tomorrow|workday|work day"
    r"|school run|another (?:day|week) at"
    # up at an hour, the verb left out: "kids up at 5:45 bc of the time change"
    r"|(?<![\w-])(?:kids?|baby|babies|i'?m|i\s+was|we'?re|we\s+were|been|everyone'?s?)\s+up\s+(?:at|since)\s+\d)\b",
    re.IGNORECASE,
)
_ROUTINE_ZH = re.compile(
    r"起床|起来|早起|挤地铁|挤公交|通勤|上班|打卡|搬砖|调休|返工"
)  # 返工: Cantonese 上班
# ... unless the early start is for something ("up at 5 for the airport", 五点起床赶飞机)
_FOR_SOMETHING_EN = re.compile(
    r"\b(?:flight|plane|airport|train|ferry|bus to|coach|interview|exam|appointment|doctor|dentist|hospital"
    r"|meeting|trip|race|match)\b",
    re.IGNORECASE,
)
_FOR_SOMETHING_ZH = re.compile(
    r"飞机|航班|机场|火车|高铁|动车|车站|面试|考试|医院|看病|体检|开会|会议|出差|比赛|集合"
)
_NOTHING_EN = re.compile(
    r"\b(nothing (?:planned|on)|no (?:meetings?|plans?|calls?)|don'?t have anything|"
    r"free day|quiet day|nothing on my)\b",
    re.IGNORECASE,
)
_NOTHING_ZH = re.compile(r"没有(?:会|安排|事)|没会|什么安排都没|日程是空|啥也没")


# words that open a turn in chat without being its subject: "Also my manager…", "对了，我室友…"
# (an interjection opens the telling too, and is nobody's name: "ugh got the call back from the derm")
_OPENER_EN = re.compile(
    r"^(?:(?:also|and|oh|btw|by the way|plus|so|but|anyway|ha|haha|lol|fyi"
    r"|ugh+|argh+|omg|welp|meh|ah+|yay|phew|hmm+|wow|woo+|ooh+|aw+|yikes|ok|okay)\b[,!.\s]*)+",
    re.IGNORECASE,
)
_OPENER_ZH = re.compile(
    # ... and where news came from ("家长群里说", "新闻上讲"): not the people in it
    # and what only opens the telling ("跟你说", "告诉你", Cantonese 同你讲)
    r"^(?:(?:对了|另外|还有|而且|然后|哈哈|话说|跟你说|跟你讲|告诉你|我跟你说|同你讲|话你知|你知道吗)+"
    r"|[\u4e00-\u9fff]{1,6}?[里上](?:说|通知|讲)(?:了)?)[，,:：\s]*"
)


# the speaker not taking part: "I'm off the hook", "don't need to go", "without me", 不用我去
_OUT_EN = re.compile(
    r"\b(?:off the hook|without me|no need for (?:me|us) to (?:go|come|be there|join|tag along)|"
    r"(?:i|we)\s+(?:don'?t|do not|won'?t|will not)\s+(?:have to\s+|need to\s+)?(?:go|come|be there|join|tag along)|"
    r"(?:i'?m|i am)\s+not\s+(?:going|coming|needed|invited)|"
    # skipping it, or left a part nobody needs them for: "we're skipping it", "no airport run for me"
    r"(?:i'?m|i am|we'?re|we are)\s+(?:skipping|giving)\s+(?:it|that|this)(?:\s+a\s+miss)?|"
    # ... or skipping said at the end of its clause: "…plays the echo tonight, i'm skipping, dead tired"
    r"(?:i'?m|i am|we'?re|we are|i'?ll be)\s+skipping(?=\s*(?:[,.;!]|$))|"
    r"(?:sitting|sit)\s+(?:it|this(?:\s+one)?)\s+out|"
    # staying behind while the other goes (the EN of 我留在家): "i'm staying behind to study"
    r"(?:i'?m|i am|we'?re|we are|i'?ll be)\s+(?:staying|stay)\s+(?:behind|back)|"
    r"no\s+(?:airport\s+run|pick-?up|lift|ride|drop-?off|school\s+run)\s+(?:needed\s+)?for\s+(?:me|us)|"
    # the other goes by themself: "she's driving herself", "he'll go on his own"
    r"(?:he|she|they)(?:'s|’s|'ll|’ll|'re|’re| is| will| are)?\s+(?:going|driving|getting|taking|go|drive|get|take)\b"
    r"[^,.;]{0,25}?\b(?:by\s+(?:himself|herself|themselves)|on\s+(?:his|her|their)\s+own)"
    # ... or takes themself there: "he's driving himself", "she'll take herself"
    r"|(?:he|she|they)(?:'s|’s|'ll|’ll|'re|’re| is| will| are)?\s+(?:driving|taking|drive|take)\s+"
    r"(?:himself|herself|themselves)"
    # ... or does the part the speaker had offered: "wait no he's bringing her back himself after"
    # (with the g dropped as it is said: "she's fetchin her from the airport herself")
    r"|(?:he|she|they)(?:'s|’s|'ll|’ll|'re|’re| is| will| are)?\s+\w+in[g'’]?\s+[^,.;]{0,25}?\b(?:himself|herself|themselves)"
    # ... or says it is none of theirs: "never mind, not my problem"
    r"|not\s+my\s+(?:problem|circus|job|business)|none\s+of\s+my\s+business"
    # ... or that the other has it in hand: "she say I must not leave work for that one, she got it"
    r"|(?:he|she|they)(?:'s|’s| has| have)?\s+got\s+it(?:\s+(?:handled|covered|sorted))?(?=\s*(?:[,.;!]|$)))\b",
    re.IGNORECASE,
)
_OUT_ZH = re.compile(
    r"不用我|不需要我|用不着我|不必我|我(?:就)?不(?:用|必)?去|没我(?:什么|啥)?事"
    # the same in Cantonese (唔 is 不, 唔使 is 不用): "佢話唔使我陪", "我唔去"
    r"|唔(?:使|驶|駛|洗|需要|用)我|我(?:就)?唔(?:使|驶|駛|洗|用)?去"
    # ... or is told not to worry or bother, someone else being with them: "我姐陪他，喊我莫担心",
    # "叫我唔好请假"
    r"|(?:喊|叫|让|讓|劝|勸)我(?:莫|别|別|不要|唔好|唔使|不用|甭)(?:担心|擔心|操心|请假|請假|去|来|嚟|管)"
    # the other goes by themself: "佢自己去", "她自己打车过去" — or is told to ("我说你自己去啦")
    r"|[他她佢你妳](?:们|哋)?自己(?:一个人)?(?:去|过去|搭|坐|开车|揸车|打车|打的|叫车)"
    # staying home while someone else goes: "老公话佢带佢去，我留喺屋企派糖就得", "我照旧喺屋企"
    r"|我(?:就|照旧|照常)?留?(?:喺|在)(?:屋企|家)|我们不去|我(?:们)?(?:就)?不(?:参加|凑热闹)"
    # ... or cannot be bothered to go: "叫我一起，我懒得去"
    r"|我(?:就|才)?懒得(?:去|动)"
    # ... or has nothing to do with it ("我这边就不用管啦"), or is left alone meanwhile ("又係我一個湊個細路")
    r"|我(?:这边|这里)?(?:就)?不用管|(?:又系|又是|就|剩|只有)我一个?人?"
    # ... or has it all in hand and tells the person to carry on: "佢老豆話佢包晒，叫我照瞓我嘅覺"
    r"|(?:他|她|佢)(?:话|说)?(?:他|她|佢)?(?:包晒|全包|包办|搞掂晒)|(?:叫|喊|让)我照(?:瞓|睡|返工|上班|做)"
    # ... or to go to work as usual, not to take leave for it: "叫我返我份工，唔好請假"
    r"|(?:叫|喊|让)我(?:照常|照旧)?(?:返|去|上)(?:我(?:份|嘅|的))?(?:工|班)|(?:唔好|不要|别|不用|唔使)请假"
    # ... or not to worry (Beijing 甭): "翻译陪他去，我甭操心"
    r"|我(?:就)?甭(?:操心|管|担心|去)"
    # ... or says it is none of theirs: "不关我的事", "唔关我事", "跟我没关系"
    r"|(?:不|唔)关我(?:的)?事|关我(?:什么|啥|乜)事|与我无关|(?:跟|和|同)我(?:没|冇)(?:什么|啥|乜)?关系?"
)
# someone else in the sentence, by a pronoun
_NAMED_LEAD = re.compile(r"(?:[A-Z][^\W\d_]+(?:'s|’s)?\s|(?:he|she|they)(?:'s|’s|'re|’re)?\b)")
_FIRST_PERSON_EN = re.compile(r"\b(?:i|i'm|i’m|i'll|i’ll|i've|i’ve|i'd|my|me|we|our|us)\b", re.IGNORECASE)
# a clock: "4:30", "at 5", "7am", 四点半, 五點 (一点 alone is "a bit": "安静一点")
_CLOCK_SAID = re.compile(
    r"\d{1,2}[:.]\d\d|\b\d{1,2}\s*[ap]\.?m\b|\bat\s+\d|(?:[\d二两三四五六七八九十]+|(?:[上下]午|[早晚]上|凌晨|中午)一)\s*[点點]",
    re.IGNORECASE,
)
_OTHERS_EN = re.compile(r"\b(?:she|he|they|her|his|their|them|him)\b", re.IGNORECASE)
_OTHERS_ZH = re.compile(r"他|她|佢")  # 佢: Cantonese he / she
_NOT_EN = re.compile(
    # (chat drops the apostrophe: "he didnt even invite me")
    r"\b(?:not|no need|don'?t|doesn'?t|won'?t|can'?t|never|didnt|isnt|wasnt|arent|werent|havent|hasnt|wouldnt"
    r"|couldnt|shouldnt)\b|n['’]t\b",
    re.IGNORECASE,
)
# 唔 / 冇: Cantonese not / have not; 哪 before a verb asks "how would I…", a no ("我哪记得")
_NOT_ZH = re.compile(r"不|没|别|无需|不用|唔|冇|哪(?=[知记会有能懂晓管])")


# the person asks to be reminded ("don't let me forget", 别让我忘了): whatever else the sentence
# reads as, they want the reminder, and it is theirs ("my mum's birthday is friday, don't let me
# forget"); a day without a time is then worth a message of its own (upcoming.plan)
_REMIND_ME = re.compile(
    r"\b(?:remind me|don['’]?t let me forget|make sure i (?:don['’]?t forget|remember)|ping me|nudge me)\b"
    r"|提醒我|提醒一下|别让我忘|记得提醒|到时候叫我|到时候提醒",
    re.IGNORECASE,
)
# … unless the asking is said no to ("no need to remind me", 不用提醒我)
_NO_REMINDER = re.compile(
    r"\b(?:no need to|don['’]?t|do not|won['’]?t need to|needn['’]?t)\s+(?:remind|ping|nudge) me\b"
    r"|(?:不用|不必|别|不要|无需)(?:再)?提醒",
    re.IGNORECASE,
)


def asks_reminder(text: str) -> bool:
    """The person asks to be reminded of what they say ("remind me", 到时候提醒我)."""
    t = simplified(text)
    return bool(_REMIND_ME.search(t)) and not _NO_REMINDER.search(t)


def _zh(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff]", text))


def clauses(text: str) -> list[str]:
    """The clauses of a sentence: a cue of tense or subject belongs to its own clause."""
    return [c.strip() for c in _SPLIT.split(text) if c and c.strip()]


def why_not(text: str) -> str | None:
    """Why a dated sentence is not the person's own plan ("vent", "other", "hypothetical",
    "done", "world", "habit", "nothing", "question"), or None: it is one. The first of
    `reasons`, which are checked in this order."""
    found = reasons(text)
    return found[0] if found else None


def reasons(text: str) -> list[str]:
    """Every reason the rules find against a dated sentence being the person's own plan, in
    `why_not`'s order: "女朋友周六考科目二，紧张得饭都吃不下" is venting and someone else's. The
    committed plan model reads only the first (`why_not`); a model reading them all was tried on
    2026-12-05 and not kept (docs/predict.md, "Twelfth session")."""
    t = simplified(" ".join(text.split()))  # the rules read Traditional as Simplified ("下週" as "下周")
    if not t:
        return ["nothing"]
    zh = _zh(t)
    if asks_reminder(t) and not t.rstrip().endswith(("?", "？")):
        return []  # they ask for the reminder: it is theirs (a question about one is not)
    out: list[str] = []
    if _QUESTION.search(t):
        out.append("question")
    # a plan moved to a time is news of a plan ahead, told with a groan or in the past tense
    move = (PLAN_MOVED_ZH if zh else PLAN_MOVED_EN).search(t)
    moved = move is not None
    # ... and moved by someone else, of the speaker's own ("they moved my MRI up to monday",
    # "诊所给我改到下周一"): theirs, whoever moved it
    mine_moved = move is not None and bool(
        re.search(r"[给把帮]我", t[max(0, move.start() - 12) : move.end()])
        if zh
        else re.search(r"\b(?:my|our|me|us)\b", move.group(0), re.IGNORECASE)
    )
    if (_VENT_ZH if zh else _VENT_EN).search(t) and not moved:
        out.append("vent")
    if any(not _of_what_may_go_wrong(t, m) for m in (_HYPO_ZH if zh else _HYPO_EN).finditer(t)):
        out.append("hypothetical")
    if (_NOTHING_ZH if zh else _NOTHING_EN).search(t):
        out.append("nothing")
    if (_HABIT_ZH if zh else _HABIT_EN).search(t):
        out.append("habit")
    if (_ROUTINE_ZH if zh else _ROUTINE_EN).search(t) and not (
        _FOR_SOMETHING_ZH if zh else _FOR_SOMETHING_EN
    ).search(t):
        out.append("routine")
    said = clauses(t)  # with their sources ("天气预报说…")
    parts = [q for p in said if (q := _OPENER_ZH.sub("", p) if zh else _OPENER_EN.sub("", p))]
    if not zh:
        # a clause of one word before the rest only opens the telling ("grand, so clocks go
        # forward tonight", "right, …"): what the sentence is about starts after it
        while len(parts) > 1 and len(parts[0].split()) == 1:
            parts = parts[1:]
    first = parts[0] if parts else t
    # ... and the clause that names the day, when another opens the sentence: "beach day at kailua
    # w/ the cousins 🏖️ Kainoa's got his firefighter physical on tuesday" is Kainoa's
    # (led by a name or he / she / they, with no word of the speaker: not "she can do my colour")
    dated = next((p for p in parts[1:] if _DATED.search(p)), None) if not _DATED.search(first) else None
    if dated is not None and (zh or not _NAMED_LEAD.match(dated) or _FIRST_PERSON_EN.search(dated)):
        dated = None
    third, me = (_THIRD_ZH, _SELF_ZH) if zh else (_THIRD_EN, _SELF_EN)
    # the speaker says in so many words they are not part of it ("不用我去", "so I'm off the hook")
    left_out = bool((_OUT_ZH if zh else _OUT_EN).search(t))
    other = bool(left_out and (_OTHERS_ZH if zh else _OTHERS_EN).search(t) and not me.search(first))
    # (above: the speaker says they are not part of it, of a plan told of someone else who is:
    # "kayla's scan is friday at 10:15, she wants her mom there so I'm off the hook")
    # the speaker takes part when a clause of theirs says so ("I'm driving her"); a clause that
    # says they do not ("我就不请假了", "I'm not going") leaves it someone else's
    # (nor does a clause of what they did already: "让我帮他过了一遍简历")
    # skipping it, whoever's it is: nothing to remind them of ("roommate's band plays the echo
    # tonight, i'm skipping")
    skip = _SKIP_ZH if zh else _SKIP_EN
    # ... unless the declining clause names what it declines and a dated clause of their own says
    # they do something then ("said no to the overtime, so saturday 10am i'm at the farmers market";
    # not "the cousins want to go skiing tomorrow, i said no, … we lose an hour of sleep tonight")
    declines_a_thing = any(len(_WORDS.findall(skip.sub(" ", p))) >= 2 for p in parts if skip.search(p))
    skipped = bool(skip.search(t)) and not (
        declines_a_thing and any(_DATED.search(p) and not skip.search(p) and _does_then(p, zh) for p in parts)
    )
    # a pet's appointment is its keeper's: a dog cannot take itself to be spayed ("pickle's getting
    # spayed monday, drop-off is 6:40"), unless the speaker says they are out of it
    pets = (
        bool((_PET_CARE_ZH if zh else _PET_CARE_EN).search(t))
        and not left_out
        and not (_OTHER_TAKES_ZH if zh else _OTHER_TAKES_EN).search(t)
    )
    if (
        other
        or skipped
        or (
            not mine_moved
            and not pets
            and (third.search(first) or (dated is not None and third.search(dated)))
            and (
                # left out in so many words: whatever else they say of themselves ("我乐得躺平") is
                # not their part
                left_out or not any(_takes_part(p, zh) for p in parts)
            )
        )
    ):
        out.append("other")
    # a clause that reads as done; "已经" in a clause of its own belongs to that clause's thing,
    # and an arrangement made is no event done ("去成都出差的机票已经订好了": the trip is ahead)
    done = _DONE_ZH if zh else _DONE_EN
    booked = _BOOKED_ZH if zh else _BOOKED_EN
    # (a first clause that reads as done while the date is told in a clause after it, which does
    # not, is another thing done: "the GP finally sent the lab form — booked the bloods for Tue 7:15am")
    # (the later clause says what the speaker does then, or that it is arranged: not "just got back
    # from the optician, new glasses friday")
    pieces = [q for p in parts for q in _DASH.split(p) if q.strip()]
    later = [
        p
        for p in pieces[1:]
        if _DATED.search(p)
        and ((_FIRST_PERSON_EN if not zh else me).search(p) or tense(p.lower()) == "future")
    ]
    if later and not _DATED.search(pieces[0]):
        if not moved and any(done.search(booked.sub("", p)) for p in later):
            out.append("done")
    elif not moved and (
        done.search(booked.sub("", _own_pieces(first, zh)))
        or (len(parts) == 1 and done.search(booked.sub("", t)))
    ):
        out.append("done")
    world = _WORLD_ZH if zh else _WORLD_EN
    if (world.search(first) or world.search(said[0] if said else t)) and not (
        _SELF_ZH if zh else _SELF_EN
    ).search(t):
        out.append("world")
    return out


# a piece after a dash told of what someone else did: "— he's already fobbed me off twice"
_SOMEONE_DID = re.compile(r"\s*(?:he|she|they)(?:['’](?:s|re|ve|d)\b|\s)", re.IGNORECASE)


def _own_pieces(clause: str, zh: bool) -> str:
    """A clause without its pieces after a dash that tell of someone else's doing: their "already"
    is no plan done ("Call with the insurance guy at 4:30 today — he's already fobbed me off")."""
    if zh:
        return clause
    pieces = _DASH.split(clause)
    return " — ".join([pieces[0], *(p for p in pieces[1:] if not _SOMEONE_DID.match(p))])


# what only a pet's keeper takes it to: the vet, a spay, the groomer
_PET_CARE_EN = re.compile(
    r"\b(?:vet|vets|vet's|veterinar\w*|spay(?:ed|ing)?|neuter(?:ed|ing)?|castrat\w*|animal\s+(?:hospital|clinic)"
    r"|groomer'?s?|grooming|kennel|cattery|worming|flea\s+treatment)\b",
    re.IGNORECASE,
)
_PET_CARE_ZH = re.compile(r"兽医|宠物医院|动物医院|绝育|宠物美容|驱虫")
# ... unless someone else takes it there: "my partner's taking Biscuit to the vet", "老公带它去打疫苗"
_OTHER_TAKES_EN = re.compile(
    r"(?<!\bi'm )(?<!\bi’m )(?<!\bim )(?<!\bi am )(?<!\bwe're )(?<!\bwe are )"
    r"\b(?:is|['’]s|are|['’]re|will\s+be)\s+(?:taking|bringing|dropping|driving|running)\b"
    r"|\b(?:he|she|they)\s+(?:takes|brings|drops|drives|will\s+take|will\s+bring)\b",
    re.IGNORECASE,
)
_OTHER_TAKES_ZH = re.compile(rf"(?:他|她|佢|他们|{_PEOPLE_ZH})(?:会|要|说|话)?(?:带|送|陪|载|揸车送)")


# 我 as the owner of a thing, by its classifier ("會揸我架車去": she takes my car), not as someone
# who takes part ("我的绩效面谈" is their own review: 的 says nothing of what is owned)
_OWNER_ZH = re.compile(r"我(?=[架部間间台辆輛])")


def _takes_part(clause: str, zh: bool) -> bool:
    """A clause in which the speaker takes part: they are in it (not as the owner of a thing),
    not negated, not in the past, and not only going about their day ("我搭火車返工", "I'll get
    the train to work": their commute, while someone else has the appointment) unless the clause
    reaches someone ("I'm up at 5 to drive her")."""
    me = _SELF_ZH if zh else _SELF_EN
    # (wished well is no part in it: "pray for me", "fingers crossed for us")
    own = _OWNER_ZH.sub("", clause) if zh else _WISHED_WELL.sub(" ", clause)
    rest = _without_subject(own, zh)
    if zh and rest != own:
        # the verb after a subject taken off is that subject's: "老师带队" is the teacher leading,
        # not the speaker's subjectless "带孩子去…" (the rules' ^带 / ^接 / ^送)
        rest = "，" + rest
    if not me.search(rest):
        return False
    if (_NOT_ZH if zh else _NOT_EN).search(clause):
        return False
    # a word given is ahead, though told in the past ("I said I'd help him with the van")
    if tense(clause.lower()) == "past" and not (_WORD_GIVEN_ZH if zh else _WORD_GIVEN_EN).search(clause):
        return False
    # ... and what has been going on up to now is no part in what comes ("she's been practising on
    # me all week"; not "I've been asked to drive her")
    if not zh and _GOING_ON.search(clause):
        return False
    routine = (_ROUTINE_ZH if zh else _ROUTINE_EN).search(clause)
    return not routine or bool((_OTHERS_ZH if zh else _OTHERS_EN).search(clause))


# the speaker as the one wished well, not one who does anything: "pray for me", "wish us luck"
_WISHED_WELL = re.compile(
    r"\b(?:pray(?:ing)?|prayers|fingers\s+crossed|rooting|cheer)\s+for\s+(?:me|us)\b|\bwish\s+(?:me|us)\s+luck\b",
    re.IGNORECASE,
)


_GOING_ON = re.compile(
    r"\b(?:has|have|had)\s+been\s+(?!asked|invited|told|roped|picked|chosen|volunteered)\w+"
    r"|['’](?:s|ve)\s+been\s+(?!asked|invited|told|roped|picked|chosen|volunteered)\w+",
    re.IGNORECASE,
)


# the speaker as the one who does something (not "invited us", "叫我"), for `_does_then`
_SUBJECT_SELF_EN = re.compile(
    r"\b(?:i|i'm|i’m|im|i'll|i’ll|i've|i’ve|ive|we|we're|we’re|we'll|we’ll)\b", re.I
)
_SUBJECT_SELF_ZH = re.compile(r"(?<![叫约请让带给跟和同喊邀])我(?!的|们的)")


def _does_then(clause: str, zh: bool) -> bool:
    """A clause in which the speaker is the one who does something, neither negated nor past
    ("so saturday 10am i'm at the farmers market", "周六上午十点我去爬山")."""
    return (
        bool((_SUBJECT_SELF_ZH if zh else _SUBJECT_SELF_EN).search(clause))
        and not (_NOT_ZH if zh else _NOT_EN).search(clause)
        and tense(clause.lower()) != "past"
    )


# no, as people say it in chat whatever language they slip into: "i said non merci", "telt dem naw"
_NO = r"(?:no|non|nah|naw|nope|nay|nomoa|nein|nee|n[ãa]o|niet)"
_SKIP_EN = re.compile(
    r"\b(?:(?:i'?m|i am|we'?re|we are|i'?ll be)\s+(?:skipping(?:\s+(?:it|that|this(?:\s+one)?))?(?=\s*(?:[,.;!]|$))"
    r"|giving\s+(?:it|that|this(?:\s+one)?)\s+a\s+miss)|(?:sitting|sit)\s+(?:it|this(?:\s+one)?)\s+out"
    # ... or a clause that only declines, its "I'm" dropped: "marco's halloween party tonight, not going"
    r"|(?:(?<=^)|(?<=[,;.!])|(?<=[,;.!]\s))(?:(?:i'?m|i am|we'?re|we are)\s+)?not\s+(?:going|gonna\s+go)\b"
    r"(?!\s+to\b)(?=\s*(?:[,.;!]|$))"
    # ... or said no to it, bailed on it, or stays home instead: "i bailed, too dead", "said no, we're
    # doing trick or treat", "lol absolutely not", "nah, staying in", "not me thank god"
    rf"|(?:i|we)\s+(?:bailed|declined|passed|said\s+{_NO})\b|(?:(?<=^)|(?<=[,;.!])|(?<=[,;.!]\s))said\s+{_NO}\b"
    r"|(?:turned|turning)\s+(?:it|them|that|this)\s+down|(?:i'?ll|i\s+will)\s+pass\b|count\s+me\s+out"
    # ... or told them they cannot: "the lads want to do theth at the weekend, told them i can't"
    r"|(?:told|texted|messaged|said\s+to)\s+(?:them|her|him|em|'em|everyone|the\s+\w+|[a-z]+)\s+(?:that\s+)?(?:i|we)\s+"
    r"(?:can'?t|cant|cannot|couldn'?t|won'?t|wont|am\s+not|'?m\s+not)(?:\s+(?:make\s+it|come|go|join|do\s+it))?"
    r"(?=\s*(?:[,.;!]|$))|(?:i|we)\s+said\s+(?:i|we)\s+(?:can'?t|cant|couldn'?t|won'?t)(?:\s+(?:make\s+it|come|go))?(?=\s*(?:[,.;!]|$))"
    # ... or told them no ("telt her naw, no this time")
    rf"|(?:told|tell|telt|texted)\s+(?:them|her|him|em|'em|dem|everyone)\s+{_NO}\b"
    # ... or will: "i said i'll give it a miss this time", "gonna pass, saving my energy"
    r"|(?:i'?ll|i\s+will|gonna|going\s+to)\s+(?:give\s+(?:it|that|this(?:\s+one)?)\s+a\s+miss|sit\s+(?:it|this(?:\s+one)?)\s+out)"
    r"|gonna\s+pass\b"
    r"|absolutely\s+not(?=\s*(?:[,.;!]|$))|(?:i'?m|i\s+am|we'?re|we\s+are|nah,?)\s+staying\s+(?:in|home|at\s+home)\b"
    r"|(?:(?<=^)|(?<=[,;.!])|(?<=[,;.!]\s))not\s+me\b|\bnot\s+my\s+thing\b"
    # ... or a clause that is nothing but a refusal, after what was proposed: "the crowd wants george
    # street tomorrow night. not a chance", "everyone's downtown tonight. nope."
    # ("nope", "nah", "no way" only after something was said: opening a message they answer or
    # marvel, "nah, the dentist is thursday at 3", "no way, they moved my interview to 9")
    r"|(?:(?<=^)|(?<=[,;.!]\s))(?:not\s+a\s+chance|no\s+chance|hard\s+pass|hell\s+no|no\s+thanks?"
    r"|thanks\s+but\s+no(?:\s+thanks)?)(?=\s*(?:[,.;!]|$))"
    r"|(?<=[,;.!]\s)(?:nope|nah|no\s+way|not\s+happening)(?=\s*(?:[,.;!]|$))"
    r"(?![,.;!]?\s*(?:it'?s\s+)?(?:moved|now|pushed|changed)\b))",
    re.IGNORECASE,
)
# the speaker declining it, whoever's it is: "我才不去", "我推咗", "我说去不了"
_SKIP_ZH = re.compile(
    # ... or said no this time: "我說不行啦", "我讲这回不去咯", "我话今次唔嚟住喇", "我说这回算了"
    r"我(?:说|话|讲)(?:这回|这次|今次|今回)?(?:不行|不去|唔得|唔去|唔嚟|不来|算了|不了)|"
    # ... or said no, and nothing after it: "Kurt 約明天去 Comino 浮潛，我說不要，水還冷得要命"
    r"我(?:说|话|讲)(?:不要|唔要|不用|唔使)(?:了|啦|喇|咯)?(?=[，,。.!！；;\s]|$)|"
    r"我(?:就|才|是)?(?:不|唔)(?:想)?去(?!了?[\u4e00-\u9fff]{0,4}[了咗])|我(?:说|話|话)?去(?:不|唔)(?:了|成|到)|我(?:已经)?(?:推|推掉|推咗|拒绝|拒絕)(?:了|咗)?(?:佢哋|佢|他们|她们|他|她|人家)?(?=[，,。.!！\s]|$)"
    r"|我们不去|我(?:就|才)?懒得(?:去|动)|我(?:就|照旧|照常)?留(?:喺|在)(?:屋企|家)"
    # (turned the one who asked down: "阿 Joyce 約我禮拜日去 Litchfield 玩水，我推咗佢")
    # ... or skips it: "我這次就跳過了"; or said they would not go: "我話唔去喇", "我说我不来了"
    r"|我[^，,。！!？?\s]{0,4}跳过|我(?:说|话)(?:我)?(?:就)?(?:不|唔)(?:去|来|嚟)"
    # ... or a clause that is nothing but a refusal, after what was proposed: "同事约我禮拜日去行
    # market，唔去喇", "…叫我周日去爬山，我说算了", "…开派对，算了不去"
    r"|(?<=[，,。.!！；;]|\s)(?:我(?:说|话)?(?:还是)?)?(?:算了(?:吧|啦)?[，,]?\s*)?(?:不|唔)去(?:了|喇|啦|嘞|咯)?(?=[，,。.!！；;\s]|$)"
    r"|(?<=[，,。.!！；;]|\s)我(?:说|话)(?:还是)?算了"
)
_WORD_GIVEN_EN = re.compile(
    # (chat drops the "I" that opens a clause: "…, said I'd get him from the airport")
    r"(?:\b(?:i|we)\s+|^\s*(?:(?:and|but|so|already|also)\s+)?)(?:said|promised|told\s+\w+|agreed|offered)"
    r"\s+(?:(?:i|we)['’]d|(?:i|we)\s+would|to)\b"
    # ... or took time off for it: "i took the day off to be with her", "booked the afternoon off"
    r"|\b(?:i|we)\s+(?:took|booked|got|have|'ve\s+got)\s+(?:the\s+|a\s+)?(?:day|morning|afternoon|half[\s-]day)\s+off\b",
    re.IGNORECASE,
)


# ... in Chinese: "我答應咗六點半前到禮堂霸位" (I promised to be at the hall by 6:30)
_WORD_GIVEN_ZH = re.compile(
    r"我(?:已经)?(?:答应|应承|保证|说好|讲好)(?:了|咗|过|過)?"
    # ... or took leave for it: an arrangement for a day ahead ("我请了假陪她", "我請咗假陪佢")
    r"|我(?:已经)?请(?:了|咗)?(?:半天|半日|一天|一日|两天|两日)?(?:的)?假"
)


def _without_subject(clause: str, zh: bool) -> str:
    """A clause without its leading third-person subject ("我妈" is not the speaker)."""
    rx = _THIRD_ZH if zh else _THIRD_EN
    return rx.sub("", clause, count=1)


def declines(text: str) -> bool:
    """The speaker says they are not going or not part of it ("我不去了", "told aunty i'm not
    coming", "i bailed"): neither a promise of theirs nor a preference worth recalling."""
    t = simplified(" ".join(text.split()))
    zh = _zh(t)
    return bool((_SKIP_ZH if zh else _SKIP_EN).search(t) or (_OUT_ZH if zh else _OUT_EN).search(t))


def own_plan(text: str) -> bool:
    """Whether a sentence with a date ahead is the person's own plan (see the module docstring)."""
    return why_not(text) is None


# the assistant offering a reminder in the turn before ("Want me to remind you…?", 要不要提醒你)
_OFFER = re.compile(r"\bremind(?:er)?\b|提醒", re.IGNORECASE)
# ... and the person's answer opening with a no ("nah you're alright", "no need", "不用啦")
_DECLINE_EN = re.compile(
    r"^\W*(?:no+\b|nah\b|nope\b|no need\b|not needed\b|don'?t bother\b|i'?m (?:good|fine|ok)\b|"
    r"you'?re (?:alright|good|ok)\b|all good\b|it'?s (?:ok|fine|alright)\b|thanks,? but\b)",
    re.IGNORECASE,
)
_DECLINE_ZH = re.compile(r"^\W*(?:不用|不必|不需要|没事|算了|别了|不了)")


def declined_reminder(item: ItemView) -> bool:
    """The person's turn answers the assistant's offer of a reminder with a no ("Want me to remind
    you on Wednesday?" — "nah you're alright, i'll do it tuesday after gym"): whatever it says of
    a day, they have just said they want no reminder of it."""
    prev, _, _ = str(item.context_text or "").partition("\n")
    said = prev.split("] ", 1)[-1]
    if not said.startswith("assistant:") or not _OFFER.search(said):
        return False
    text = what(item)
    return bool((_DECLINE_ZH if _zh(text) else _DECLINE_EN).search(text))


def is_own_plan(item: ItemView, tz: ZoneInfo, now: datetime, own: Callable[[str], bool] = own_plan) -> bool:
    """Whether an event item is the person's own plan: each sentence that names its day is
    judged (by `own`: the rules, or `plan_model.reader_for` the memory's embedder), one of them
    suffices, and its headline must name something to do."""
    said = item.observed_at or now
    # any sentence of that day may make it the person's: "我妈周四五点四十落地。我得四点半出门去接"
    # (their part is the second sentence); and it names what is on: a day with nothing named
    # ("tuesday. raining sideways") is talk
    told = dated_sentences(what(item), said, tz)
    return (
        (
            any(
                _judged(s, said, tz, own)
                and not _someone_elses_clause(s, said, tz)
                and (k == 0 or "other" not in reasons(told[0]) or _reaches(s, told[0]))
                for k, s in enumerate(told)
            )
            # ... or with the sentence after it, which tells what the day is ("thursday's the big
            # one. out on the boat all day…")
            # (not when the day's sentence is someone else's: "jess has a 5:50am flight wednesday.
            # i am NOT up at 4" stays Jess's)
            # (only when the day's own sentence says only how big the day is: "packing tmrw night.
            # is a 20kg hold bag overkill" is judged as "packing tmrw night")
            or (
                bool(told)
                and ranks_only(headline(told[0], said, tz))
                and "other" not in reasons(told[0])
                and not _someone_elses_clause(told[0], said, tz)
                and any(
                    _judged(s, said, tz, own) and not _someone_elses_clause(s, said, tz)
                    for s in told_on(what(item), said, tz)
                )
            )
        )
        and names_a_thing(headline(what(item), said, tz))
        and not _left_out_after(what(item), said, tz)
    )


def _reaches(later: str, first: str) -> bool:
    """A later sentence of the person that takes part in someone else's plan told first: it gives
    a clock of their own for it ("我得四点半出门去接"), names them ("I'm driving her"), or names
    what it is. "室友 Phoebe 禮拜六早上要考 IELTS… 我週末要安靜一點" does none: the roommate's
    exam stays hers, the weekend's quiet is no appointment."""
    t = simplified(later)
    zh = _zh(t)
    return bool(
        _CLOCK_SAID.search(t)
        or (_OTHERS_ZH if zh else _OTHERS_EN).search(t)
        or shared_words(simplified(first), t)
    )


def is_own_sentence(
    sentence: str, rest: str, said: datetime, tz: ZoneInfo, own: Callable[[str], bool] = own_plan
) -> bool:
    """Whether one dated sentence of a turn tells a plan of the person's own, judged as
    `is_own_plan` judges the sentences of an item's day: a second plan in the same message
    ("… and tita baby's 60th is on the 24th, 6pm at Casa Ilang-Ilang"). `rest`: the text from
    that sentence on, where the person may say they are out of it."""
    return (
        _judged(sentence, said, tz, own)
        and not _someone_elses_clause(sentence, said, tz)
        and names_a_thing(headline(sentence, said, tz))
        and not _left_out_after(rest, said, tz)
    )


# a clock said alone, with no day: "at 5:40", "早上 8:50", "7.10am"
_BARE_CLOCK = re.compile(
    r"^(?:at\s+|@\s*)?(?:around\s+|about\s+)?\d{1,2}(?:[:.]\d\d)?\s*(?:[ap]\.?m\.?)?$"
    r"|^(?:早上|上午|下午|晚上|中午|凌晨|傍晚|朝早)?\s*(?:\d{1,2}\s*[:：]\s*\d\d"
    r"|[\d一二两三四五六七八九十]+\s*点(?:半|\d+分?|[一二三四五六七八九十]+分?)?)$",
    re.IGNORECASE,
)
JUST_PASSED = timedelta(hours=1)
SPAN_PASSED = timedelta(hours=3)
# a clock that begins or ends a stretch, with what lasted between ("七点半塞到八点二十", "七点四十堵到
# 八点半"; "七点半到九点开家长会" tells when a meeting is)
_SPAN_AFTER = re.compile(
    r"^[^,，。.!！?？\d\s一二两三四五六七八九十半分点]{1,3}?(?:到|至)\s*[\d一二两三四五六七八九十]",
    re.IGNORECASE,
)
_SPAN_BEFORE = re.compile(
    r"[\d一二两三四五六七八九十][点:：.]?[\d一二两三四五六七八九十半分]*[^,，。.!！?？\d\s一二两三四五六七八九十半分点]{1,3}?(?:到|至)\s*$",
    re.IGNORECASE,
)


def _just_passed(sentence: str, said: datetime, tz: ZoneInfo) -> bool:
    """The sentence's only date is a clock said alone that passed less than `JUST_PASSED` before it
    was said, and nothing in it looks ahead: the person tells what has just happened ("the 101 at
    5:40 is a joke" at 17:55, "地铁一号线早上 8:50 又卡在隧道里不动" at 09:05), not what comes at that
    clock tomorrow."""
    found = resolve_dates(sentence, said, tz)
    if len(found) == 2 and _stretch_over(sentence, found, said, tz):
        return True
    if len(found) != 1 or found[0].direction != "future" or not found[0].has_clock:
        return False
    m = found[0]
    if not _BARE_CLOCK.match(simplified(m.text.strip())) or tense(sentence.lower()) == "future":
        return False
    at = m.value.astimezone(tz)
    if said - JUST_PASSED <= at - timedelta(hours=24) <= said:
        return True  # the same clock today, just gone
    if (_SPAN_AFTER.match(sentence[m.end :]) or _SPAN_BEFORE.search(sentence[: m.start])) and any(
        said - SPAN_PASSED <= at - timedelta(hours=h) <= said for h in (12, 24)
    ):
        # one end of a stretch that is over ("从七点半塞到八点二十" at 08:50, "七点四十堵到八点半"
        # at 08:45): how long something lasted this morning, no appointment tonight
        return True
    # ... or its other half of the day, when the sentence says how it is or was ("the 101 at 5:40 is
    # a joke" at 17:55); a bare "taxi at 5:20" said then may well be tomorrow morning's
    rest = simplified(sentence[m.end :])
    return (
        said - JUST_PASSED <= at - timedelta(hours=12) <= said
        and bool(
            (_SAYS_HOW_ZH if _zh(rest) else _SAYS_HOW).search(rest)
            or (not _zh(sentence) and _MISHAP.search(sentence))
            # … or what led up to it was told as done ("等咗成個鐘，八點半先郁到" at 08:35)
            or (_zh(sentence) and _DONE_BEFORE_ZH.search(simplified(sentence[: m.start])))
        )
    )


def _stretch_over(sentence: str, found: list[DateMention], said: datetime, tz: ZoneInfo) -> bool:
    """Two bare clocks that begin and end a stretch of something ("从六点四十五分堵到七点半"),
    both passed within `SPAN_PASSED` of when it was said."""
    first, last = sorted(found, key=lambda m: m.start)
    return (
        all(m.has_clock and _BARE_CLOCK.match(simplified(m.text.strip())) for m in found)
        and _SPAN_AFTER.fullmatch(sentence[first.end : last.start] + "0") is not None
        and all(
            any(said - SPAN_PASSED <= m.value.astimezone(tz) - timedelta(hours=h) <= said for h in (12, 24))
            for m in found
        )
        and tense(sentence.lower()) != "future"
    )


# a predicate after the clock: how the thing is or was ("is a joke", "又停在半路", "堵成停车场")
_SAYS_HOW = re.compile(r"\b(?:is|was|are|were|has been|had|got|took|been)\b|['’]s\b", re.IGNORECASE)
# ... or the sentence names a mishap, which nobody schedules: "northern line signal failure at 8:20, of
# course", "tram 4 broke down at 8:30"
_MISHAP = re.compile(
    r"\b(?:failure|failed|fail|delay(?:ed|s)?|broke\s+down|breakdown|stuck|jam(?:med)?|gridlock(?:ed)?|crash(?:ed)?"
    r"|accident|chaos|madness|packed|rammed)\b",
    re.IGNORECASE,
)
_SAYS_HOW_ZH = re.compile(r"又|还在|了|着|晚点|延误|停在|堵|挤|卡在")
_DONE_BEFORE_ZH = re.compile(r"咗|了[^解]")


def _judged(sentence: str, said: datetime, tz: ZoneInfo, own: Callable[[str], bool]) -> bool:
    """`own`'s verdict on a dated sentence; when venting, a habit or the day's routine is all the
    rules hold against it (or nothing: the plan model's veto of the whole sentence), the verdict on
    the clauses that tell the plan. A complaint in one clause of a run-on message is about what
    that clause says, not about an appointment in another ("ugh the landlord STILL hasn't sent
    anyone, …, so I booked her in at the clinic for Tuesday at 4:15, …"), and the sentence's vector
    is mostly the complaints; who takes part, a wish or a "done" can be said anywhere in the
    sentence, so those still read it whole. A clock that has just passed is no plan (`_just_passed`)."""
    if _just_passed(sentence, said, tz):
        return False
    if own(sentence):
        return True
    part = plan_part(sentence, said, tz)
    found = set(reasons(sentence))
    if part != sentence and found <= _OF_THEIR_CLAUSE and own(part):
        return True
    # a groan that only opens the sentence, before the person tells what they are on ("ugh just found
    # out im on the first aid refresher this thursday"): the plan is read without it; not a groan
    # over the whole sentence with no "I" doing anything in it ("Ugh, monday 8am standup again",
    # "ugh the week, my boss pings me at midnight, my sister's flight lands saturday at 6"), nor
    # another complaint after it ("ugh, and the inbox on friday will be a nightmare when I'm back")
    groan = _GROAN_OPENS.match(sentence)
    if found == {"vent"} and groan is not None:
        rest = sentence[groan.end() :]
        if _SUBJECT_SELF_EN.search(rest) and not _VENT_EN.search(rest) and not _zh(rest) and own(rest):
            return True
    # a groan in a clause of its own beside the plan's: "這週四要整天去大阪出差，…，當天來回累死",
    # "禮拜四下午四點在中目黑站碰面看那間 2LDK 🏠 希望這次不要又是鬼價格" — the clause that holds
    # the date says the plan and no groan ("Monday again tomorrow, ugh" groans in it)
    # (nor a groan said as the whole sentence's opener, "Ugh, and the inbox on Friday will be a
    # nightmare", nor a burden in the plan's own clause: "明天早上八点还要站会")
    clause = _dated_clause(sentence, said, tz)
    rest = sentence.replace(clause, " ") if clause else ""
    return (
        found == {"vent"}
        and clause not in ("", sentence)
        and len(_WORDS.findall(_OPENER_EN.sub("", rest.strip(" ,.!，。！")))) >= 2
        and not _BURDEN.search(simplified(clause))
        and not reasons(clause)
        and own(clause)
    )


_WORDS = re.compile(r"[A-Za-z]+|[\u4e00-\u9fff]")
_GROAN_OPENS = re.compile(r"^\W*(?:ugh+|argh+|urgh+|sigh|ffs|welp)\b[\s,.!…🙄😩😫😤]*", re.IGNORECASE)
# what the speaker still has to do, again: a burden, not news of a plan ("还要站会", "still have to",
# "组会又拖到晚上七点")
_BURDEN = re.compile(
    r"还要|还得|又要|又得|又(?:拖|被|改|推|延)|\bstill (?:have|got) to\b|\bhave to\b.*\bagain\b",
    re.IGNORECASE,
)


def _dated_clause(sentence: str, said: datetime, tz: ZoneInfo) -> str:
    """The clause of `sentence` that holds its first date ahead, or ""."""
    ahead = [m for m in resolve_dates(sentence, said, tz) if m.direction == "future"]
    if not ahead:
        return ""
    at = 0
    for piece in _SPLIT.split(sentence):
        at = sentence.find(piece, at) if piece else at
        if piece and at <= ahead[0].start < at + len(piece):
            return piece.strip()
        at += len(piece or "")
    return ""


# readings about what a clause says (a complaint, a habit, the day's routine: "…, the lamination at work is
# falling apart"), not about whose the sentence's plan is
_OF_THEIR_CLAUSE = frozenset(("vent", "routine", "habit"))


def _left_out_after(text: str, said: datetime, tz: ZoneInfo) -> bool:
    """A sentence after the plan's, with no date of its own, in which the speaker says they are
    not part of it: "the Lindqvists are doing their halloween party tonight. we're skipping it",
    "… tmrw night. said no, we're doing trick or treat", "… not my thing thank god"."""
    said_in = sentences(" ".join(text.split()))

    def dated(s: str) -> bool:
        # (a day or an hour of its own: "i'll pass this year" names a year, no other plan)
        return any(m.granularity in ("day", "time") for m in resolve_dates(s, said, tz))

    first = next((k for k, s in enumerate(said_in) if dated(s)), None)
    if first is None:
        return False
    # the clause that says so has no day of its own ("telt her naw, no this time, … an early night
    # before tuesday": the no is of this plan, tuesday is another's)
    plain = [simplified(c) for s in said_in[first + 1 :] for c in _PART.findall(s) if not dated(c)]
    return any(
        bool((_OUT_ZH if _zh(p) else _OUT_EN).search(p) or (_SKIP_ZH if _zh(p) else _SKIP_EN).search(p))
        for p in plain
    )


_PART = re.compile(r"[^,;，；]+[,;，；]?")


# a clause led by he / she / they, with no word of the speaker in it
_THEY_LEAD_EN = re.compile(
    r"^(?:(?:and|but|so|cause|cos|bc|because|since|as)\s+)?(?:he|she|they)(?:'s|’s|'re|’re)?\b", re.I
)
_CLAUSE_EN = re.compile(r"[^,;:.!?]+")


def _someone_elses_clause(sentence: str, said: datetime, tz: ZoneInfo) -> bool:
    """The clause that holds the sentence's date ahead tells of someone else: "ochieng can't move
    it, they fly to geneva on friday", "615's still with priya, she's on leave til thursday"."""
    if _zh(sentence):
        return False
    ahead = [m for m in resolve_dates(sentence, said, tz) if m.direction == "future"]
    if not ahead:
        return False
    clause = next(
        (c.group(0).strip() for c in _CLAUSE_EN.finditer(sentence) if c.start() <= ahead[0].start < c.end()),
        "",
    )
    # ... also after "and": "it's only waiting on kaarel's review and he's at his grandma's till tuesday"
    # (the part that holds the date: not "pickle's dental is tuesday and they want her dropped off")
    at = ahead[0].start - sentence.find(clause)
    cuts = [0, *(m.end() for m in _AND_THEY_EN.finditer(clause)), len(clause)]
    clause = next((clause[a:b] for a, b in itertools.pairwise(cuts) if a <= at < b), clause).strip()
    return bool(_THEY_LEAD_EN.match(clause)) and not _SELF_EN.search(clause)


_AND_THEY_EN = re.compile(r"\s+(?=and\s+(?:he|she|they)(?:'s|’s|'re|’re)?\s)", re.IGNORECASE)
