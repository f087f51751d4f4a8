#!/usr/bin/env python3
"""The ten English scenarios of blind7."""
from lib import PR, Scenario

META = []  # (file name, language label, kinds, silence?, expected right answer)


def reg(s, lang, kinds, answer):
    path = s.write()
    META.append((s.name + ".json", lang, kinds, s.silence, answer))
    return path


# ------------------------------------------------------------------ 1. Johannesburg
def jnb():
    s = Scenario("en-jnb-plumber-tomorrow-said-at-0040-gautrain-0450-wed-kagiso-mri",
                 "lerato", "Africa/Johannesburg", "2026-09-06 19:00", "2026-09-09 10:00",
                 quiet=("21:30", "06:00"), prefix="tm")
    trip = s.user("2026-09-06 19:40",
                  "sorted the trip finally. wednesday i'm flying to gqeberha for the plant audit, "
                  "flight's 06:10 out of OR tambo so i'm on the 04:50 gautrain from sandton. eish", "s1")
    s.bot("That's an early one. Noted: Wednesday, 04:50 Gautrain from Sandton, 06:10 flight to Gqeberha.")
    s.user("2026-09-06 20:05",
           "kagiso's MRI on his knee is thursday at 2, his mom is taking him so at least that's sorted")
    s.bot("Good that his mom can go with him. Hope the knee is okay.")
    plumber = s.user("2026-09-07 00:40",
                     "ag i can't sleep. tomorrow the plumber is coming at 9:30 for the geyser, "
                     "i must be home and not at the gym like a chop", "s2")
    s.bot("Plumber at 9:30, noted. Try get some sleep.")
    s.user("2026-09-07 08:05",
           "ag man, monday again. the team group chat is already on fire and i haven't even had coffee", "s3")
    s.bot("Coffee first. The chat can wait ten minutes.")
    s.user("2026-09-07 11:20", "plumber's done, new element in. R2 400 later 😭")
    s.bot("Ouch, but at least there's hot water again.")
    s.user("2026-09-08 12:30",
           "packing list for PE: hard hat, steel toes, laptop charger. what am i forgetting", "s4")
    s.bot("Ear plugs for the plant floor, and your ID for the flight.")
    s.user("2026-09-08 12:32", "lol yes my ID. ok back to the audit deck")

    s.exp("2026-09-07 06:00", "2026-09-07 09:15", ["plumber", "geyser"], [plumber], kind="reminder")
    s.exp("2026-09-08 16:00", "2026-09-08 21:29",
          ["gautrain", "gqeberha", "flight", "or tambo", "04:50", "4:50"], [trip], kind="reminder")
    s.no("'tomorrow' typed at 00:40 on Monday is that Monday; the plumber came at 09:30 Monday, "
         "so anything later (or a Tuesday reminder) is stale or the wrong day",
         lo="2026-09-07 09:31", mentions=["plumber", "geyser"])
    s.no("redundant: Monday's only event is the plumber, which gets its own reminder",
         lo="2026-09-07 00:00", hi="2026-09-07 23:59", mentions=["plumber", "geyser"], kind="digest")
    s.no("the Gautrain left at 04:50; a morning message about it is too late",
         lo="2026-09-09 04:50", mentions=["gautrain", "gqeberha", "flight", "or tambo"])
    s.no("Kagiso's MRI is his appointment and his mom is taking him", mentions=["mri", "kagiso", "knee"])
    s.no("quotes the venting or the raw 00:40 message back", mentions=["monday again", "on fire", "like a chop", "can't sleep"])
    s.quiet()
    reg(s, "EN (South African, Johannesburg, quiet 21:30–06:00)", "2, 8, 4, 1, 3",
        "Plumber \"tomorrow … at 9:30\", typed Mon 00:40, is Monday: one reminder Mon 06:00–09:15, no "
        "digest repeating it that day, nothing about it after 09:30 (so no Tuesday reminder). Wednesday's "
        "04:50 Gautrain / 06:10 flight to Gqeberha: reminder the evening before, Tue 16:00–21:29, never in "
        "quiet hours, nothing after 04:50. Nothing about Kagiso's MRI; no quoting of the Monday venting")


# ------------------------------------------------------------------ 2. Singapore
def sin():
    s = Scenario("en-sin-pr-1482-after-lunch-own-node-bump-waits-gst-typo-on-the-spot",
                 "farhan", "Asia/Singapore", "2026-10-13 08:30", "2026-10-14 13:00",
                 quiet=("23:00", "07:30"), prefix="fr", github_login="farhan-rahim")
    repo = "lionpay/merchant-portal"
    p1482 = PR(repo, 1482, "Add PayNow QR refund flow",
               "Merchants can now refund a PayNow QR payment from the portal. Adds a refund "
               "state machine and reconciles partial refunds against the settlement file.",
               "jiahui-lim", "feat/paynow-refund", "2026-10-13T01:40:00Z", commits=7,
               additions=486, deletions=52, changed_files=14, labels=["needs-review"])
    p1486 = PR(repo, 1486, "Bump CI image to Node 22",
               "Node 18 goes EOL soon. Moves the CI image and .nvmrc to 22, no app changes.",
               "farhan-rahim", "chore/node-22", "2026-10-13T03:30:00Z", commits=2,
               additions=9, deletions=9, changed_files=3)
    p1490 = PR(repo, 1490, "Fix GST label typo on invoice PDF",
               "'GTS 9%' -> 'GST 9%' on the invoice footer.", "siti-nur", "fix/gst-label",
               "2026-10-13T07:05:00Z", commits=1, additions=2, deletions=2, changed_files=1)

    s.user("2026-10-13 09:48",
           "wah lao today's standup drag until 9.40 again. 15 min meeting become 40 min, every week same thing sia")
    s.bot("Long one. At least it's done for today.")
    g1 = s.review_requested("rr-1482", "2026-10-13 10:05", p1482, "farhan-rahim")
    later = s.user("2026-10-13 10:12",
                   "jiahui tag me for her paynow refund PR. cannot now lah, rushing the release notes. "
                   "after lunch then i look")
    s.bot("Okay, Jiahui's PR after lunch.")
    s.review_requested("rr-1486", "2026-10-13 11:40", p1486, "junhao-ng")
    s.user("2026-10-13 11:44",
           "my node 22 bump also up liao, waiting for jun hao. he on course whole week so no rush one")
    s.bot("Got it.")
    s.user("2026-10-13 12:25", "ok makan time, lau pa sat with the team. damn craving satay")
    s.review_requested("rr-1490", "2026-10-13 15:10", p1490, "farhan-rahim")
    s.user("2026-10-13 15:12", "siti's one is 2 lines only, doing it now")
    s.review_submitted("rv-1490", "2026-10-13 15:17", p1490, "farhan-rahim", "approved", "LGTM 👍")
    s.review_submitted("rv-1482", "2026-10-14 10:20", p1482, "farhan-rahim", "commented",
                       "Flow looks good. Two questions on how partial refunds round, see inline.")
    s.user("2026-10-14 10:25", "ok done with jiahui's PR, left some comments on the refund rounding", "s2")
    s.bot("Nice, that's cleared.")

    s.exp("2026-10-13 13:15", "2026-10-14 10:19", ["#1482", "paynow", "refund", "jiahui"], [g1, later])
    s.no("he said he'd look after lunch; a nudge before lunch is over is nagging",
         lo="2026-10-13 10:13", hi="2026-10-13 13:14", mentions=["#1482", "paynow", "refund", "jiahui"])
    s.no("the review of #1482 was submitted", lo="2026-10-14 10:21",
         mentions=["#1482", "paynow", "refund", "jiahui"])
    s.no("#1486 is his own PR waiting on Jun Hao; nothing for him to do",
         lo="2026-10-13 11:40", mentions=["#1486", "node 22", "jun hao", "junhao"])
    s.no("#1490 was reviewed on the spot", lo="2026-10-13 15:12", mentions=["#1490", "gst", "siti"])
    s.no("quotes the standup venting back", mentions=["standup", "wah lao", "40 min"])
    s.quiet()
    reg(s, "EN (Singlish, Singapore, quiet 23:00–07:30)", "5, 1, 3",
        "One nudge about Jiahui's #1482 (PayNow refund) after lunch: Tue 13:15 – Wed 10:19. None between "
        "his \"after lunch then i look\" (10:12) and 13:14, none after his review Wed 10:20. Nothing about his "
        "own #1486 (waits on Jun Hao) or #1490 (reviewed on the spot). No quoting of the standup venting")


# ------------------------------------------------------------------ 3. Glasgow
def gla():
    s = Scenario("en-gla-risk-register-missed-ceilidh-shortlist-sent-hr-form-dentist-tuesday-week",
                 "ailsa", "Europe/London", "2026-03-09 08:00", "2026-03-12 18:00", prefix="am",
                 email_address="ailsa.macleod@clydemail.example.co.uk")
    me = "Ailsa MacLeod <ailsa.macleod@clydemail.example.co.uk>"
    promises = s.user("2026-03-09 09:05",
                      "right, before i forget. promised calum i'd have the risk register updated by wednesday, "
                      "and told morag she'd get the venue shortlist for the ceilidh by tuesday")
    s.bot("Noted: risk register to Calum by Wednesday, ceilidh venue shortlist to Morag by Tuesday.")
    s.user("2026-03-09 09:40", "oh and the dentist is tuesday week, ten past 9, the one on byres road")
    s.bot("Noted.")
    form = s.email("hr-form", "2026-03-09 11:30", "Shona Baird <s.baird@northbankfoods.example.co.uk>",
                   [me], "Flexible working agreement",
                   "Hi Ailsa,\n\nFollowing our chat last week, I've attached your flexible working agreement "
                   "(compressed hours, Fridays off from April). I need it signed and back to me by Thursday "
                   "12 noon so payroll can set it up for next month.\n\nCheers,\nShona\n\n"
                   "Shona Baird | People Team | Northbank Foods")
    s.user("2026-03-09 13:15",
           "how is it still only monday. this week's got a face like a wet weekend already", "s2")
    s.bot("Hang in there. Tea might help.")
    s.email("promo", "2026-03-10 07:45", "Tartan Threads <hello@tartanthreads.example.co.uk>", [me],
            "Spring knitwear: 30% off this week only",
            "Lighter layers for brighter days. 30% off all spring knitwear until Sunday at midnight.\n\n"
            "Shop now →\n\nYou're receiving this because you joined our mailing list. Unsubscribe",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-03-10 16:20",
           "sent morag the ceilidh venue shortlist, she's chuffed. three halls, the partick one's the favourite", "s3")
    s.bot("Nice one, that's that sorted.")
    s.user("2026-03-11 19:30", "fish supper tonight, no regrets. dinnae judge me", "s4")
    s.bot("No judgement here.")
    s.user("2026-03-12 09:40", "signed shona's form and fired it back", "s5")
    s.bot("Good stuff.")

    s.exp("2026-03-09 11:45", "2026-03-12 09:39", ["flexible working", "shona", "agreement"], [form],
          kind="follow_up")
    s.exp("2026-03-12 07:00", "2026-03-12 12:00", ["risk register", "calum"], [promises])
    s.no("the form was signed and sent back", lo="2026-03-12 09:41",
         mentions=["flexible working", "shona", "agreement"])
    s.no("the venue shortlist was sent to Morag", lo="2026-03-10 16:21",
         mentions=["ceilidh", "morag", "venue shortlist"])
    s.no("one check-in about the risk register the morning after the promised day, then silence",
         lo="2026-03-12 12:01", mentions=["risk register", "calum"])
    s.no("'tuesday week' said on Monday 9 March is Tuesday 17 March, not tomorrow",
         lo="2026-03-10 00:00", hi="2026-03-10 23:59", mentions=["dentist", "byres"])
    s.no("the dentist is on 17 March, outside this span; a reminder now is far too early",
         mentions=["dentist", "byres"], kind="reminder")
    s.no("promotional e-mail", mentions=["tartan threads", "knitwear", "30%"])
    s.no("quotes the venting back", mentions=["wet weekend", "only monday"])
    s.quiet()
    reg(s, "EN (Scottish, Glasgow)", "7, 6, 8, 1, 3",
        "Follow-up on Shona's \"I need it signed and back to me by Thursday 12 noon\" (no \"?\"): Mon 11:45 – "
        "Thu 09:39, nothing after she sends it back. Venue shortlist promised to Morag by Tuesday was sent "
        "Tue 16:20: nothing after. Risk register promised to Calum by Wednesday never reported done: one "
        "check-in Thu 07:00–12:00, then silence. Dentist \"tuesday week\" (said Mon 9 Mar = Tue 17 Mar): "
        "nothing on Tue 10 and no reminder in the span. Promo and Monday venting stay silent")


# ------------------------------------------------------------------ 4. Auckland (silence)
def akl():
    s = Scenario("en-akl-wip-rant-flatmate-raro-flight-tongariro-someday-rego-paid-silence",
                 "tama", "Pacific/Auckland", "2026-11-16 08:00", "2026-11-18 20:00",
                 quiet=("22:00", "06:30"), prefix="hw", email_address="tama.ngata@kiwimail.example.co.nz")
    me = "Tama Ngata <tama.ngata@kiwimail.example.co.nz>"
    s.user("2026-11-16 08:20",
           "sweet as, another monday. the 8:30 WIP meeting is literally people reading jira out loud to each other")
    s.bot("Ha. Maybe take a coffee in with you.")
    s.user("2026-11-16 12:10",
           "my flatmate greer flies to raro on thursday, 6:15am out of akl. she's booked her own uber so "
           "not my problem thank god", "s2")
    s.bot("Rarotonga, nice! Glad she's sorted.")
    s.user("2026-11-16 18:40",
           "if i ever actually do the tongariro crossing remind me to book the shuttle months ahead, "
           "everyone says it sells out", "s3")
    s.bot("Good tip for whenever that happens.")
    s.user("2026-11-17 09:15", "car rego was due on the 20th, just paid it online. sorted", "s4")
    s.bot("Nice, one less thing.")
    s.email("promo", "2026-11-17 11:00", "Kauri & Co Homewares <deals@kauriandco.example.co.nz>", [me],
            "Black Friday starts early: up to 50% off",
            "Kia ora Tama,\n\nOur Black Friday sale starts today. Up to 50% off bedding, kitchen and outdoor. "
            "Ends Monday 30 November.\n\nShop now\n\nUnsubscribe | Manage preferences",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-11-17 15:28",
           "team drinks friday at the fed, 5ish. probably gonna flag it tbh, bit knackered", "s5")
    s.bot("Want me to remind you on Friday afternoon in case you change your mind?")
    s.user("2026-11-17 15:29", "nah leave it, if i go i go")
    s.bot("No worries, I won't.")
    s.email("newsletter", "2026-11-18 07:30", "The Harbour Weekly <editor@harbourweekly.example.co.nz>", [me],
            "This week: ferry timetable shake-up, a new bao spot on K Road",
            "Kia ora readers,\n\nFrom 23 November the Devonport ferry moves to a 20-minute timetable on "
            "weekday evenings. Also: the bao spot everyone's queueing for on Karangahape Road, and a "
            "summer swim guide.\n\nRead online | You're receiving this because you subscribed. Unsubscribe",
            labels=("INBOX", "CATEGORY_UPDATES"))
    s.user("2026-11-18 12:30", "lunch from the food truck, the dumplings are mean", "s6")
    s.bot("Sounds choice.")

    s.silent()
    s.no("quotes the Monday venting back", mentions=["wip meeting", "jira out loud", "another monday"])
    s.no("Greer's flight is hers and she has her own Uber", mentions=["greer", "flatmate", "raro", "6:15"])
    s.no("'if i ever … remind me' is a hypothetical, not a plan", mentions=["tongariro", "shuttle"])
    s.no("the rego is already paid", mentions=["car rego", "rego was"])
    s.no("he turned down a reminder for the drinks", mentions=["drinks", "the fed"])
    s.no("promotional e-mail", mentions=["kauri", "black friday", "50%"])
    s.no("newsletter", mentions=["harbour weekly", "ferry", "bao"])
    s.quiet()
    reg(s, "EN (Kiwi, Auckland, quiet 22:00–06:30)", "1, 6, 3",
        "**silence**. Nothing about: the WIP-meeting rant; flatmate Greer's 6:15am flight to Rarotonga (own "
        "Uber); \"if i ever … remind me\" about Tongariro; the rego (already paid); Friday drinks (he turned "
        "the reminder down); the Black Friday promo; the newsletter's ferry timetable")


# ------------------------------------------------------------------ 5. Chicago
def chi():
    s = Scenario("en-chi-recert-9-to-5-clashes-2pm-call-book-club-moved-dentist-quarter-to-8",
                 "kasia", "America/Chicago", "2026-10-12 08:00", "2026-10-15 21:00",
                 quiet=("22:00", "06:30"), prefix="dk", email_address="kasia.wojcik@prairiemail.example.com")
    me = "Kasia Wójcik <kasia.wojcik@prairiemail.example.com>"
    s.user("2026-10-12 08:45",
           "ugh monday. the ops huddle ran long bc someone decided to relitigate the parking lot policy. AGAIN")
    s.bot("That sounds painful. Deep breath.")
    recert = s.user("2026-10-12 10:20",
                    "fyi thursday i'm stuck in the forklift safety recert 9 to 5 at the joliet warehouse. "
                    "mandatory, phones in a basket the whole time 🙃", "s2")
    s.bot("Noted, Thursday is blocked for the recert.")
    dentist = s.user("2026-10-12 12:10",
                     "also dentist wednesday at quarter to 8 before work, cleaning + that crown check")
    s.bot("Got it.")
    club = s.user("2026-10-12 14:30",
                  "book club at maggie's wednesday 7ish, we're finally doing the covenant of water. "
                  "i'm 200 pages behind lol", "s3")
    s.bot("Plenty of time to catch up. Or skim.")
    call = s.user("2026-10-12 15:40",
                  "ok set up a call with dale from halvorsen supply thursday at 2pm about the pallet rack quote", "s4")
    s.bot("Okay.")
    moved = s.email("bookclub", "2026-10-13 09:05", "Maggie Brennan <maggie.b@lakeviewmail.example.com>",
                    [me, "Rosa Delgado <rosa.d@example.com>", "Jen Park <jenpark@example.com>"],
                    "book club change!!",
                    "Hi all — my basement took on water over the weekend and the house is a mess. Rosa has "
                    "kindly offered her place instead, so book club is now THURSDAY at 7 at Rosa's "
                    "(2214 W Belden). Same book, bring snacks. Sorry for the shuffle!\n\nxo Maggie")
    s.user("2026-10-13 17:30", "made it through another day. tacos tonight", "s5")
    s.bot("Tacos are the right call.")

    s.exp("2026-10-12 15:41", "2026-10-14 17:00",
          ["halvorsen", "dale", "recert", "forklift", "2pm", "2 pm"], [recert, call], kind="conflict")
    s.exp("2026-10-13 17:00", "2026-10-14 07:30", ["dentist", "crown", "cleaning"], [dentist], kind="reminder")
    s.exp("2026-10-15 06:30", "2026-10-15 18:30", ["book club", "rosa", "covenant"], [moved, club],
          kind="reminder")
    s.no("the clash should be flagged once, ahead of time; on Thursday she is already in the recert",
         lo="2026-10-15 09:00", kind="conflict")
    s.no("redundant: the dentist is Wednesday's only event and gets its own reminder",
         lo="2026-10-14 00:00", hi="2026-10-14 23:59", mentions=["dentist", "crown", "cleaning"], kind="digest")
    s.no("the dentist appointment has started", lo="2026-10-14 07:46", mentions=["dentist", "crown"])
    s.no("book club moved to Thursday by Maggie's e-mail; a Wednesday reminder follows the old plan",
         lo="2026-10-14 00:00", hi="2026-10-14 23:59", mentions=["book club", "covenant"], kind="reminder")
    s.no("book club has started", lo="2026-10-15 19:01", mentions=["book club", "rosa", "covenant"])
    s.no("quotes the Monday venting back", mentions=["parking lot", "relitigate", "ops huddle"])
    s.no("quotes the raw chat line instead of writing the reminder", mentions=["behind lol", "🙃"])
    s.quiet()
    reg(s, "EN (American, Chicago, quiet 22:00–06:30)", "4, 6, 2, 1, 3",
        "Conflict between Thursday's recert \"9 to 5\" and the Halvorsen call \"thursday at 2pm\": once, Mon "
        "15:41 – Wed 17:00, no conflict on Thursday from 09:00. Dentist \"wednesday at quarter to 8\": "
        "reminder Tue 17:00 – Wed 07:30 (not in quiet hours), no digest repeating it on Wednesday. Book club "
        "\"wednesday 7ish\" at Maggie's moved by her e-mail to Thursday 7 at Rosa's: reminder Thu "
        "06:30–18:30, no book-club reminder on Wednesday. No quoting of the huddle venting")


# ------------------------------------------------------------------ 6. Bengaluru
def blr():
    s = Scenario("en-blr-pr-3391-once-ci-green-coupon-pr-waits-rohit-passport-on-the-19th",
                 "sandeep", "Asia/Kolkata", "2026-11-26 09:00", "2026-11-27 18:00",
                 quiet=("23:00", "07:00"), prefix="ks", github_login="sandeep-hegde")
    repo = "tiffinbox/order-router"
    p3391 = PR(repo, 3391, "Make order writes idempotent on retry",
               "Retries from the payment callback were double-writing orders. Adds an idempotency key "
               "per callback and a unique index; flaky kafka consumer test is quarantined separately.",
               "divya-rao", "feat/idempotent-writes", "2026-11-26T04:55:00Z", commits=6,
               additions=341, deletions=77, changed_files=11, labels=["needs-review"])
    p3394 = PR(repo, 3394, "Fix double-applied coupon on split orders",
               "When an order is split across two kitchens the coupon was applied to both halves.",
               "sandeep-hegde", "fix/split-order-coupon", "2026-11-26T06:30:00Z", commits=3,
               additions=58, deletions=14, changed_files=4)
    s.user("2026-11-26 09:55", "standup today was full time-pass yaar. 45 mins and nobody decided anything")
    s.bot("Oof. Hopefully the rest of the day is more productive.")
    g1 = s.review_requested("rr-3391", "2026-11-26 11:00", p3391, "sandeep-hegde")
    once = s.user("2026-11-26 11:06",
                  "divya added me on her idempotency PR but CI is red on it, some flaky kafka test. "
                  "i'll review once CI is green, no point before that")
    s.bot("Makes sense.")
    s.review_requested("rr-3394", "2026-11-26 12:10", p3394, "rohit-kamath")
    s.user("2026-11-26 12:14",
           "raised my coupon fix PR. rohit will take it up after he's back from leave on monday, no tension")
    s.check_suite("cs-red", "2026-11-26 13:30", p3391, "failure", "Add idempotency key to callback writes")
    s.user("2026-11-26 16:50",
           "btw my passport renewal slot at the PSK is on the 19th, 10:30am, koramangala one. "
           "need to dig out the old passport and address proof", "s2")
    s.bot("Noted.")
    green = s.check_suite("cs-green", "2026-11-26 18:40", p3391, "success",
                          "Quarantine flaky kafka consumer test")
    s.user("2026-11-26 19:30", "dinner is dosa from the darshini downstairs, best decision of the day", "s3")
    s.bot("Can't argue with that.")
    s.review_submitted("rv-3391", "2026-11-27 11:15", p3391, "sandeep-hegde", "approved",
                       "Looks good. Nice catch on the unique index.")

    s.exp("2026-11-26 18:40", "2026-11-27 11:14", ["#3391", "idempoten", "divya"], [g1, once, green])
    s.no("CI on #3391 was still red; he said he'd review once it is green",
         lo="2026-11-26 11:07", hi="2026-11-26 18:39", mentions=["#3391", "idempoten", "divya"])
    s.no("#3391 was reviewed", lo="2026-11-27 11:16", mentions=["#3391", "idempoten", "divya"])
    s.no("#3394 is his own PR waiting on Rohit, who is on leave",
         lo="2026-11-26 12:10", mentions=["#3394", "coupon", "rohit"])
    s.no("'on the 19th' said on 26 November is 19 December; nothing to remind in this span",
         lo="2026-11-26 16:51", mentions=["passport", "psk"])
    s.no("quotes the standup venting back", mentions=["time-pass", "45 mins", "standup"])
    s.quiet()
    reg(s, "EN (Indian, Bengaluru, quiet 23:00–07:00)", "5, 8, 1, 3",
        "One nudge about Divya's #3391 once CI is green (check suite success Thu 18:40): Thu 18:40 – Fri "
        "11:14, none while CI is red (11:07–18:39), none after his review Fri 11:15. Nothing about his own "
        "#3394 (waits on Rohit). Passport slot \"on the 19th\", said 26 Nov = 19 Dec: nothing in the span. "
        "No quoting of the standup venting")


# ------------------------------------------------------------------ 7. Lagos (silence)
def lag():
    s = Scenario("en-lag-pr-877-on-the-spot-brother-visa-interview-declined-japa-someday-silence",
                 "chidinma", "Africa/Lagos", "2026-11-02 08:00", "2026-11-04 20:00",
                 quiet=("22:00", "06:30"), prefix="co", github_login="chidinma-ok",
                 email_address="chidinma.okafor@ekomail.example.ng")
    me = "Chidinma Okafor <chidinma.okafor@ekomail.example.ng>"
    p877 = PR("kobo-ledger/invoicing-service", 877, "Fix kobo rounding in invoice totals",
              "Totals were rounded per line instead of per invoice, so some invoices were off by 1 kobo.",
              "tunde-adeyemi", "fix/kobo-rounding", "2026-11-02T09:10:00Z", commits=2,
              additions=31, deletions=12, changed_files=3)
    s.user("2026-11-02 08:50",
           "this monday traffic on third mainland bridge ehn. 2 hours for a 40 min drive. "
           "i'm tired before the day has even started")
    s.bot("That's rough. Hope the day gets better from here.")
    s.review_requested("rr-877", "2026-11-02 10:30", p877, "chidinma-ok")
    s.user("2026-11-02 10:33", "tunde's PR is tiny, just 3 files. let me just do it now")
    s.review_submitted("rv-877", "2026-11-02 10:49", p877, "chidinma-ok", "approved", "Clean. Approved.")
    s.user("2026-11-02 13:00",
           "my brother emeka has his visa interview at the US embassy on wednesday 8am. he's been practising "
           "answers on me all week, omo i know his CV by heart now", "s2")
    s.bot("Wishing him luck! Do you want me to remind you on Wednesday morning to send him a good-luck message?")
    s.user("2026-11-02 13:02", "no o, i'll see him tuesday night at mummy's place and pray with him there. no need")
    s.bot("Alright, no reminder then.")
    s.email("promo", "2026-11-03 11:00", "Àṣà Threads <hello@asathreads.example.ng>", [me],
            "Black Friday early access: 40% off ankara sets",
            "You're on the list! Early access to our Black Friday sale: 40% off all ankara two-piece sets "
            "until Sunday.\n\nShop now\n\nUnsubscribe",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-11-03 19:10", "if i ever get that canada PR, remind me to sell the generator before i japa 😂", "s3")
    s.bot("Ha, noted for that day.")
    s.user("2026-11-04 09:00", "paid the estate service charge this morning, the one due friday. one less wahala", "s4")
    s.bot("Nice, that's off the list.")

    s.silent()
    s.no("quotes the traffic venting back", mentions=["third mainland", "traffic", "tired before"])
    s.no("#877 was reviewed on the spot", lo="2026-11-02 10:33", mentions=["#877", "rounding", "tunde"])
    s.no("Emeka's interview is his, and she turned the reminder down", mentions=["emeka", "visa", "embassy"])
    s.no("'if i ever … remind me' is a hypothetical", mentions=["canada", "generator", "before i japa"])
    s.no("the service charge is already paid", mentions=["service charge", "estate"])
    s.no("promotional e-mail", mentions=["àṣà", "asa threads", "ankara", "black friday", "40%"])
    s.quiet()
    reg(s, "EN (Nigerian, Lagos, quiet 22:00–06:30)", "1, 5, 6, 3",
        "**silence**. #877 was reviewed on the spot (\"let me just do it now\"). Nothing about brother "
        "Emeka's Wednesday 8am visa interview (she turned the offered reminder down); \"if i ever … remind "
        "me\" about the generator; the service charge (paid); the Black Friday promo; no quoting of the "
        "Third Mainland traffic venting")


# ------------------------------------------------------------------ 8. Phoenix
def phx():
    s = Scenario("en-phx-camelback-515am-saturday-wheel-class-cancelled-derm-week-from-thursday",
                 "lupe", "America/Phoenix", "2026-09-16 09:00", "2026-09-19 10:00",
                 quiet=("22:00", "06:00"), prefix="ln", email_address="lupe.navarro@sonoranmail.example.com")
    me = "Lupe Navarro <lupe.navarro@sonoranmail.example.com>"
    hike = s.user("2026-09-16 09:30",
                  "saturday me and my cousin are doing camelback, meeting at the echo canyon trailhead at 5:15am "
                  "before it hits 108 lol")
    s.bot("Smart to go early. Bring more water than you think you need.")
    s.user("2026-09-16 12:05",
           "wheel throwing class thursday 6:30 at clay & coyote, finally gonna try a bowl that doesn't collapse", "s2")
    s.bot("Good luck with the bowl!")
    s.user("2026-09-16 15:20",
           "oh and my follow up with the dermatologist is a week from thursday, 9:40. writing it here so i don't lose it")
    s.bot("Got it.")
    s.user("2026-09-17 08:40",
           "8am vendor sync on a thursday that could've been an email. who does that to people", "s3")
    s.bot("Rough start. At least it's behind you.")
    s.email("studio", "2026-09-17 10:10", "Renée at Clay & Coyote <studio@clayandcoyote.example.com>", [me],
            "Tonight's wheel class is cancelled",
            "Hi Lupe,\n\nOur kiln controller died this morning and the electrician needs the studio tonight, "
            "so tonight's 6:30 wheel class is cancelled. You'll get a credit for a make-up session.\n\n"
            "Sorry for the short notice!\nRenée\nClay & Coyote Studio")
    s.email("newsletter", "2026-09-17 11:00", "Saguaro Sundays <news@saguarosundays.example.org>", [me],
            "Fall is (almost) here: night walks start October 3",
            "Our after-dark desert walks are back from October 3. Members get early booking this week.\n\n"
            "Read more | Unsubscribe", labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-09-17 12:30", "work is dead today, thinking about ordering poke")
    s.bot("Poke sounds like a plan.")
    s.user("2026-09-18 13:00", "cousin just texted, she's bringing her dog on the hike. of course she is", "s4")
    s.bot("The dog is going to love it.")

    s.exp("2026-09-18 16:00", "2026-09-18 21:59", ["camelback", "hike", "echo canyon", "5:15"], [hike],
          kind="reminder")
    s.no("the hike has started; too late", lo="2026-09-19 05:15", mentions=["camelback", "hike", "echo canyon"])
    s.no("the wheel class was cancelled by the studio's e-mail",
         lo="2026-09-17 10:11", mentions=["wheel", "pottery", "clay & coyote"], kind="reminder")
    s.no("'a week from thursday' said Wed 16 Sep is Thu 24 Sep, not tomorrow",
         lo="2026-09-17 00:00", hi="2026-09-17 23:59", mentions=["dermatolog", "9:40"])
    s.no("the dermatologist is on 24 Sep, outside this span", mentions=["dermatolog"], kind="reminder")
    s.no("newsletter", mentions=["saguaro sundays", "night walk"])
    s.no("quotes the raw chat line instead of writing the reminder", mentions=["108 lol", "of course she is"])
    s.no("quotes the Thursday venting back", mentions=["vendor sync", "could've been an email"])
    s.quiet()
    reg(s, "EN (American, Phoenix, quiet 22:00–06:00)", "2, 6, 8, 1, 3",
        "Camelback hike, meeting at Echo Canyon \"saturday … 5:15am\": reminder the evening before, Fri "
        "16:00–21:59, never in quiet hours, nothing after 05:15. Thursday's wheel class was cancelled by the "
        "studio's e-mail: no reminder for it. Dermatologist \"a week from thursday\" (said Wed 16 Sep = Thu "
        "24 Sep): nothing on Thu 17 and no reminder in the span. Newsletter and the vendor-sync venting stay "
        "silent")


# ------------------------------------------------------------------ 9. Kathmandu (silence)
def ktm():
    s = Scenario("en-ktm-sprint-review-rant-own-esewa-pr-waits-roommate-ielts-numbers-sent-silence",
                 "prakash", "Asia/Kathmandu", "2026-12-06 08:30", "2026-12-08 18:00",
                 quiet=("22:00", "06:00"), prefix="pt", github_login="prakash-thapa",
                 email_address="prakash.thapa@himalmail.example.com.np")
    me = "Prakash Thapa <prakash.thapa@himalmail.example.com.np>"
    p264 = PR("himal-tech/remit-gateway", 264, "Add eSewa payment callback retries",
              "Retries eSewa callbacks with backoff when the ledger is briefly unavailable.",
              "prakash-thapa", "feat/esewa-retry", "2026-12-06T05:30:00Z", commits=4,
              additions=190, deletions=21, changed_files=7)
    s.user("2026-12-06 09:10",
           "sunday and already back in office, nepal things. the 10 o'clock sprint review is going to be "
           "a 2 hour drama, i can feel it")
    s.bot("Hopefully shorter than you fear.")
    s.review_requested("rr-264", "2026-12-06 11:30", p264, "sujata-shrestha", sender="prakash-thapa")
    s.user("2026-12-06 11:35",
           "put my esewa retry PR up for sujata. she's in pokhara for her sister's wedding till wednesday "
           "so it'll just sit. fine")
    s.bot("Okay.")
    s.user("2026-12-06 14:00", "promised ramesh dai the load-test numbers by monday noon", "s2")
    s.bot("Noted.")
    s.user("2026-12-06 17:45",
           "my roommate bibek has his IELTS on tuesday morning at 8, he's been studying like a maniac. "
           "making him dal bhat tonight for brain power", "s3")
    s.bot("Good roommate move.")
    s.user("2026-12-06 18:30", "actually finished the load-test numbers already and sent them to ramesh dai. done")
    s.bot("Nice, early even.")
    s.user("2026-12-07 12:00",
           "if we ever do the annapurna circuit as a team trip, remind me to get the TIMS card sorted early", "s4")
    s.bot("Will keep that in mind for if it happens.")
    s.email("promo", "2026-12-07 13:00", "Himalayan Deals <offers@himalayandeals.example.com.np>", [me],
            "12.12 mega sale is coming 🔥",
            "Up to 70% off electronics and fashion on 12.12. Add to wishlist now so you don't miss it.\n\n"
            "Unsubscribe", labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-12-08 08:10",
           "bibek's exam is today, sent him a good luck message. and the chiya at office is fresh for once", "s5")
    s.bot("Fingers crossed for him.")

    s.silent()
    s.no("quotes the sprint-review venting back (and he knows about a meeting he is complaining about)",
         mentions=["sprint review", "2 hour drama"])
    s.no("#264 is his own PR waiting on Sujata", mentions=["#264", "esewa", "sujata"])
    s.no("Bibek's IELTS is the roommate's", mentions=["bibek", "ielts"])
    s.no("the load-test numbers were already sent", lo="2026-12-06 18:31", mentions=["load-test", "ramesh"])
    s.no("'if we ever … remind me' is a hypothetical", mentions=["annapurna", "tims card"])
    s.no("promotional e-mail", mentions=["12.12", "himalayan deals", "mega sale"])
    s.quiet()
    reg(s, "EN (Nepali, Kathmandu UTC+5:45)", "1, 5, 7, 6, 3",
        "**silence**. Nothing about: the sprint-review rant; his own #264 (waits on Sujata, away at a "
        "wedding); roommate Bibek's IELTS; the load-test numbers (promised by Monday noon, sent Sunday "
        "18:30); \"if we ever … remind me\" about the Annapurna circuit; the 12.12 promo")


# ------------------------------------------------------------------ 10. London
def lon():
    s = Scenario("en-lon-gp-half-3-inspection-moved-by-email-tidy-reminder-declined",
                 "tolu", "Europe/London", "2026-05-18 08:30", "2026-05-21 12:00",
                 quiet=("22:30", "07:00"), prefix="ta", email_address="tolu.adebayo@thamesmail.example.co.uk")
    me = "Tolu Adebayo <tolu.adebayo@thamesmail.example.co.uk>"
    s.user("2026-05-18 09:40",
           "monday innit. 9am all-hands and the CEO did a 20 minute bit about synergy. i'm done already")
    s.bot("Twenty minutes of synergy is a lot for a Monday.")
    gp = s.user("2026-05-18 11:30", "GP appointment wednesday half 3, finally got one. the surgery on mare street", "s2")
    s.bot("Glad you got one.")
    insp = s.user("2026-05-18 16:00",
                  "letting agent's doing the flat inspection weds at 11, need to tidy the whole place before then, "
                  "send help", "s3")
    s.bot("Want me to remind you on Tuesday evening to do a tidy-up?")
    s.user("2026-05-18 16:01", "nah you're alright, i'll do it tuesday after gym anyway")
    s.bot("Fair enough.")
    moved = s.email("inspection", "2026-05-19 10:15",
                    "Imogen Pryce <imogen.pryce@harrowlyle.example.co.uk>", [me],
                    "Inspection rescheduled – Flat 3, 41 Dalston Lane",
                    "Dear Tolu,\n\nUnfortunately our inspector is unavailable on Wednesday. We have rescheduled "
                    "your periodic inspection to Thursday 21 May at 9.30am. You don't need to be present; we "
                    "will use the key on file if you are out.\n\nKind regards,\nImogen Pryce\n"
                    "Property Manager, Harrow & Lyle Lettings")
    s.user("2026-05-19 13:00", "meal deal from tesco again, living the dream", "s4")
    s.bot("A classic.")
    s.user("2026-05-20 16:40", "GP was fine, just need bloods done at some point", "s5")
    s.bot("Good to hear.")

    s.exp("2026-05-20 07:00", "2026-05-20 15:15", ["GP", "mare street", "surgery", "doctor"], [gp], kind="reminder")
    s.exp("2026-05-20 12:00", "2026-05-21 09:15", ["inspection", "harrow", "letting agent"], [moved, insp],
          kind="reminder")
    s.no("redundant: the GP is Wednesday's only event and gets its own reminder",
         lo="2026-05-20 00:00", hi="2026-05-20 23:59", mentions=["gp", "mare street"], kind="digest")
    s.no("the GP appointment has started", lo="2026-05-20 15:31", mentions=["gp appointment", "mare street"])
    s.no("he turned down the Tuesday tidy-up reminder",
         lo="2026-05-19 00:00", hi="2026-05-19 23:59", mentions=["tidy"], kind="reminder")
    s.no("the inspection moved from Wednesday 11:00 to Thursday 09:30; a Wednesday-morning reminder follows "
         "the old plan", lo="2026-05-20 00:00", hi="2026-05-20 11:00", mentions=["inspection"], kind="reminder")
    s.no("the inspection has started", lo="2026-05-21 09:31", mentions=["inspection", "harrow"])
    s.no("quotes the venting back", mentions=["synergy", "all-hands", "monday innit"])
    s.quiet()
    reg(s, "EN (London, quiet 22:30–07:00)", "2, 6, 4, 1, 3",
        "GP \"wednesday half 3\" (15:30): reminder Wed 07:00–15:15, no digest repeating it that day. Flat "
        "inspection \"weds at 11\" moved by the letting agent's e-mail to Thu 09:30: reminder Wed 12:00 – "
        "Thu 09:15 (not in quiet hours), no inspection reminder Wednesday up to 11:00 (the old plan). He turned down the "
        "Tuesday tidy-up reminder: none. No quoting of the all-hands venting")


ALL = [jnb, sin, gla, akl, chi, blr, lag, phx, ktm, lon]

if __name__ == "__main__":
    for f in ALL:
        f()
    for m in META:
        print(m[0])
