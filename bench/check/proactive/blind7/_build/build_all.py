#!/usr/bin/env python3
"""Build all blind7 scenarios, run check.py, and write ../INDEX.md."""
import glob
import os
import subprocess
import sys

import build_en
import build_zh
from lib import OUT, HERE

for f in glob.glob(os.path.join(OUT, "*.json")):
    os.remove(f)
for f in build_en.ALL + build_zh.ALL:
    f()
META = build_en.META + build_zh.META

chk = subprocess.run([sys.executable, os.path.join(HERE, "check.py")], capture_output=True, text=True)
result = [l for l in chk.stdout.splitlines() if l.startswith("Result:")][-1]
n_sil = sum(1 for m in META if m[3])
n_en = sum(1 for m in META if m[0].startswith("en-"))
n_zh = sum(1 for m in META if m[0].startswith("zh-"))

HEAD = f"""# Blind proactive scenarios, batch 7 ({len(META)}: {n_en} English, {n_zh} Chinese; {n_sil} silence)

I wrote these without reading memubot's code, docs, tests or bench scripts. I read only
`shared/bench/proactive/README.md`, `shared/bench/score_proactive.py`, the shared example scenarios
(`shared/bench/proactive/*.json`), and, for file format only, batch 6 (`bench/check/proactive/blind6/`:
its INDEX.md and JSON; it has no `_build/` folder in this checkout). From batch 6 I took how e-mails,
inlined GitHub bodies, quiet hours and windows are written. The people, places, sentences and situations
here are new. To keep them new I also listed the file names and time zones of batches 1–5 and
grepped them for the names and places I had picked (renaming the few that collided); I did not read
their scenarios.

Time zones: Johannesburg, Singapore, Glasgow/London (GMT and BST), Auckland (NZDT), Chicago, Bengaluru
(UTC+5:30), Lagos, Phoenix (no DST), Kathmandu (UTC+5:45), Beijing/Hangzhou/Chengdu/Guangzhou/Shanghai/
Wuhan (Asia/Shanghai), Taipei and Kaohsiung (Asia/Taipei), Sydney (AEDT) and New York. No span crosses
a DST change.

## Conventions

- **Quiet hours** are in each file's `config.quiet_hours` (22:00–07:00 unless the table says otherwise).
  Every night of the span gets a forbid window `[start, end)` in local time, written as `start` …
  `end − 1 s` and clipped to the span.
- **Early appointments.** When the best reminder time falls in quiet hours (a 04:50 train, a 05:15
  hike, a 06:07 high-speed train), the window is the evening before, ending the minute quiet hours
  begin. Anything about the event after it has started is forbidden.
- **Redundancy.** The format cannot say "at most one message". Where a day has a single event that
  gets its own `reminder` expectation, a `digest` that mentions the same event that day is forbidden
  (the convention of batches 4 and 6). A clash is expected once, with `kind: conflict`, in a window
  ahead of the day; a `conflict` on the day itself, once the clashing block has begun, is forbidden.
- **Silence.** A silence scenario has `expect: []` and forbids every `reminder`, `follow_up` and
  `conflict`, plus mention-based forbids for each tempting topic. A digest is still allowed once a
  day (the scorer's rule), as long as it mentions none of the forbidden topics.
- **Promises.** Kept: nothing after the person says it's done. Not kept: one check-in the morning
  after the promised day (from the end of quiet hours to 12:00), then a forbid on the topic.
- **Reminder text.** Forbids with `mentions_any` catch quoted venting and raw chat fragments
  ("like a chop", "wah lao", "画饼", "😵") that a reminder written for the purpose would not contain.
- **Kinds.** GitHub nudges and promise check-ins leave `kind` open (any kind); e-mail asks use
  `follow_up`; appointments use `reminder`; clashes use `conflict`.
- **GitHub bodies** are inlined as `{{id, scope, event, action, payload, received_at}}` with
  octokit-shaped payloads generated from scratch by `_build/lib.py` (deterministic ids from hashes):
  `pull_request` `review_requested`, `pull_request_review` `submitted`, and, new in this batch,
  `check_suite` `completed` (failure, then success) for "once CI is green".
- **E-mails** are `{{id, scope, from, to, cc, subject, date, thread, labels, text}}`; promotions and
  newsletters carry `CATEGORY_PROMOTIONS` (one newsletter carries `CATEGORY_UPDATES`).

## Build and check

`_build/build_all.py` runs `_build/build_en.py` and `_build/build_zh.py` (which write the JSON files
via `_build/lib.py`), then `_build/check.py`, then writes this INDEX.md. `_build/check.py` checks each file:

- it loads, event ids are unique, each event's scope and time stamp agree with the file;
- evidence ids exist;
- events and every expect/forbid window lie inside `[start, end]`; the span is at most 5 days and
  there are 6–20 events;
- `score(s, [])` from the shared scorer runs;
- an ideal delivery passes: one message per expectation at the first minute of its window that hits
  no forbid, kind = the expectation's kind (or `reminder`), title = its first `mentions_any`,
  `source_ids` = its `evidence_from`. It must meet every expectation with no violations and no noise.

{result}

## Kinds

1. Talk that is not the person's own appointment: venting about a weekday or meeting, someone else's
   appointment (partner, roommate, brother, flatmate), hypotheticals (with "remind me" inside), things
   already done, an assistant suggestion the person turns down.
2. Own appointments with a clock time in varied phrasing, including very early ones whose ideal
   reminder falls in quiet hours (evening before; never in quiet hours; never after the event).
3. Reminder text: what, when and where in words written for it; no quoted venting or cut sentences.
4. Redundancy: digest repeating a day's only (already reminded) event; a clash of two own plans,
   flagged once.
5. GitHub: review request plus when the person will look ("after lunch", "once CI is green",
   "明天下午再看", "周会开完再看"); own PR waiting on someone else; review done on the spot.
6. E-mail: an ask without a question mark; a cancellation or new time for a plan mentioned in chat;
   promotions/newsletters stay silent.
7. Promises: one kept (no check-in), one not kept (one check-in the morning after, then silence).
8. Dates and tense: "tomorrow" typed after midnight, "on the 19th" said on the 26th, "tuesday week",
   "a week from thursday", 下周二 said on a Monday, 后天 + "票已经买好了".

## Files

| file | lang | kinds | expected right answer |
|---|---|---|---|
"""

rows = [f"| {m[0]} | {m[1]} | {m[2]} | {m[4]} |" for m in META]

COVER = """
## Coverage

- **Kind 1** (all 20 files): venting in every file. Someone else's appointment: en-jnb (partner's MRI),
  en-akl (flatmate's 6:15am flight), en-lag (brother's visa interview), en-ktm (roommate's IELTS),
  zh-bj (husband's medical), zh-tpe (boyfriend's endoscopy), zh-gz (roommate's flight), zh-syd
  (boyfriend's ultrasound, roommate's 5am flight), zh-nyc (roommate's wisdom tooth). Hypotheticals
  with "remind me": en-akl, en-lag, en-ktm, zh-tpe, zh-gz, zh-syd, zh-nyc. Already done: en-akl (rego),
  en-lag (service charge), en-ktm, zh-gz, zh-syd, zh-nyc. Assistant suggestion turned down: en-akl,
  en-lag, en-lon, zh-syd, zh-nyc.
- **Kind 2** (8 files): "04:50 gautrain"/"06:10" (en-jnb), "9:30" typed at 00:40 (en-jnb), "quarter
  to 8", "9 to 5", "2pm", "7ish" (en-chi), "5:15am" (en-phx), "half 3" (en-lon), "早上6点07" (zh-bj),
  "9点到5点", "下午两点半", "三点一刻" (zh-cd), "晚上七點半" → "晚上 6:30" (zh-khh), "下午三点",
  "晚上 7 点" (zh-sh). Early ones whose ideal time is in quiet hours: en-jnb, en-phx, zh-bj.
- **Kind 3** (all files): quoted-venting forbids everywhere; raw-fragment forbids in en-jnb, en-chi,
  en-phx, zh-bj, zh-sh.
- **Kind 4**: clash flagged once in en-chi (recert 9 to 5 vs 2pm call) and zh-cd (培训 9点到5点 vs
  两点半电话). Digest redundancy in en-jnb, en-chi, en-lon, zh-cd, zh-khh.
- **Kind 5** (7 files): "when I'll look" in en-sin ("after lunch"), en-blr ("once CI is green", with
  check_suite events), zh-hz ("明天下午再看"), zh-wh ("周会开完再看"). Own PR waiting on others in
  en-sin, en-blr, en-ktm, zh-tpe, zh-hz, zh-wh. Reviewed on the spot in en-sin, en-lag, zh-tpe.
- **Kind 6**: ask without "?" in en-gla ("I need it signed and back to me by Thursday 12 noon"),
  zh-khh ("於週五中午前拍照回傳給我"), zh-wh ("请于本周四下班前……发到"). New time by e-mail: en-chi
  (book club), en-lon (inspection), zh-khh (dentist). Cancellation by e-mail: en-phx (wheel class),
  zh-gz (饮茶), zh-wh (聚餐). Promotions/newsletters: en-gla, en-akl, en-lag, en-phx, en-ktm, zh-tpe,
  zh-gz, zh-syd, zh-nyc.
- **Kind 7**: kept and not kept in en-gla and zh-khh; not kept in zh-hz; kept in en-ktm, zh-gz,
  zh-syd, zh-nyc.
- **Kind 8**: "tomorrow" typed after midnight in en-jnb (00:40) and zh-sh (0:40 "明天"); "on the 19th"
  said on 26 Nov (en-blr); "tuesday week" (en-gla); "a week from thursday" (en-phx); 下周二 said on a
  Monday (zh-sh); 后天 with "票已经买好了" (zh-bj); 明天下午 for a PR (zh-hz); 明天下午三点一刻 (zh-cd).

## Judgement calls

- A reminder for something outside the span (en-gla dentist, en-phx dermatologist, en-blr passport,
  zh-sh 居住证) can only be tested by forbids: no mention on the wrongly-read day, no reminder in the span.
- en-chi: the Halvorsen call is neither expected nor forbidden on Thursday (she is in the recert with
  phones in a basket; the clash was flagged earlier); a reminder for it costs precision only.
- en-ktm: the 10 o'clock sprint review is his own meeting, but he is complaining about it 50 minutes
  before; a reminder would only repeat what he has just said, so the file is silence.
- en-lon: the inspection reminder window opens Wed 12:00 so that one message combining the GP and the
  moved inspection counts; reminders about the inspection up to Wed 11:00 (the old slot) are forbidden.
"""

with open(os.path.join(OUT, "INDEX.md"), "w", encoding="utf-8") as f:
    f.write(HEAD + "\n".join(rows) + "\n" + COVER)
print(chk.stdout)
sys.exit(chk.returncode)
