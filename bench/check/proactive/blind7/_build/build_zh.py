#!/usr/bin/env python3
"""The ten Chinese scenarios of blind7."""
from lib import PR, Scenario

META = []


def reg(s, lang, kinds, answer):
    path = s.write()
    META.append((s.name + ".json", lang, kinds, s.silence, answer))
    return path


# ------------------------------------------------------------------ 1. 北京
def bj():
    s = Scenario("zh-bj-houtian-0607-gaotie-piao-yijing-maihao-laogong-tijian",
                 "xiaoyu", "Asia/Shanghai", "2026-05-19 08:30", "2026-05-21 06:30", prefix="xy")
    s.user("2026-05-19 09:20", "周二例会又拖了一个小时，领导一句“我简单说两句”讲了四十分钟，服了")
    s.bot("辛苦了，先喝口水缓缓。")
    trip = s.user("2026-05-19 12:40",
                  "后天去济南分公司交接，票已经买好了，早上6点07北京南站的高铁，得4点半就起 😵", "s2")
    s.bot("好早，前一晚早点睡。")
    s.user("2026-05-19 20:10", "我老公下周一上午去做入职体检，他自己去，我就不管了", "s3")
    s.bot("好的。")
    s.user("2026-05-20 12:15", "中午点了个螺蛳粉，整个工位都是味儿哈哈", "s4")
    s.bot("同事们可能要抗议了。")
    s.user("2026-05-20 15:30", "济南那边说交接会上午十点开始，下午我就能回来")
    s.bot("好的。")

    s.exp("2026-05-20 17:00", "2026-05-20 21:59", ["高铁", "济南", "北京南", "6点07", "6:07"], [trip],
          kind="reminder")
    s.no("“已经”说的是票：票已经买好了，不要提醒买票", mentions=["买票", "订票", "抢票"])
    s.no("高铁 6:07 已经开了，再提醒就晚了", lo="2026-05-21 06:07", mentions=["高铁", "北京南"])
    s.no("老公的体检是他自己的事", mentions=["体检", "老公"])
    s.no("引用例会吐槽", mentions=["例会", "简单说两句", "四十分钟"])
    s.no("照抄原话而不是写一条提醒", mentions=["😵", "4点半就起"])
    s.quiet()
    reg(s, "ZH (北京口语)", "2, 8, 1, 3",
        "周二说“后天……票已经买好了，早上6点07北京南站的高铁”：“已经”属于票，车在周四。周三晚 17:00–21:59 "
        "提醒一次（说清几点、哪个站），不在安静时段，6:07 后不提，也不提醒买票。老公的入职体检、例会吐槽不提")


# ------------------------------------------------------------------ 2. 台北（静默）
def tpe():
    s = Scenario("zh-tpe-pr-463-dangchang-kan-ziji-pr-deng-xinyi-nanyou-weijing-silence",
                 "yating", "Asia/Taipei", "2026-09-07 08:30", "2026-09-09 20:00",
                 quiet=("23:00", "07:30"), prefix="yt", github_login="yating-lin",
                 email_address="yating.lin@pinecone.example.tw")
    me = "林雅婷 <yating.lin@pinecone.example.tw>"
    repo = "pinecone-tw/booking-api"
    p463 = PR(repo, 463, "Fix timezone offset in ticket export",
              "CSV export used UTC for departure times; now uses Asia/Taipei.", "kuanting-chen",
              "fix/export-tz", "2026-09-07T02:40:00Z", commits=1, additions=12, deletions=4, changed_files=2)
    p421 = PR(repo, 421, "Add idempotency key to refund API",
              "Prevents double refunds when the client retries.", "yating-lin", "feat/refund-idempotency",
              "2026-09-07T06:10:00Z", commits=5, additions=233, deletions=40, changed_files=9)
    s.user("2026-09-07 09:40", "禮拜一早上的週會又開到快十一點，主管每次都說「最後一點」然後再講三點 🙄")
    s.bot("辛苦了，週會開完再好好喝杯咖啡吧。")
    s.review_requested("rr-463", "2026-09-07 10:50", p463, "yating-lin")
    s.user("2026-09-07 10:53", "冠廷那個 PR 很小，我現在直接看，五分鐘的事")
    s.review_submitted("rv-463", "2026-09-07 11:05", p463, "yating-lin", "approved", "LGTM，謝謝！")
    s.review_requested("rr-421", "2026-09-07 14:20", p421, "hsinyi-wu")
    s.user("2026-09-07 14:25", "我的退款 PR 丟給欣怡了，她這禮拜特休去花蓮，下禮拜才會看，不急", "s2")
    s.bot("了解。")
    s.user("2026-09-07 20:30", "我男友禮拜四早上要去台大醫院做胃鏡，他媽媽會陪他去，我那天要上班", "s3")
    s.bot("希望檢查順利。")
    s.email("promo", "2026-09-08 10:00", "好日子生活選物 <news@haorizi.example.tw>", [me],
            "9.9 購物節開跑！全館 5 折起",
            "9/9 當天限定，全館 5 折起，滿千再折百。\n\n立即逛逛\n\n不想再收到？取消訂閱",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-09-08 21:00", "如果哪天真的要去北海道滑雪，記得提醒我先去辦國際駕照", "s4")
    s.bot("好，到時候再說。")
    s.user("2026-09-09 12:10", "中午吃了巷口的雞肉飯，配一碗貢丸湯，完美", "s5")
    s.bot("經典組合！")

    s.silent("zh")
    s.no("引用週會吐槽", mentions=["週會", "最後一點"])
    s.no("#463 當場就 review 完了", lo="2026-09-07 10:53",
         mentions=["#463", "timezone offset", "ticket export", "冠廷", "kuanting"])
    s.no("#421 是她自己的 PR，在等欣怡", mentions=["#421", "退款", "idempotency", "欣怡", "hsinyi"])
    s.no("男友的胃鏡是他的事，他媽媽陪", mentions=["胃鏡", "台大", "男友"])
    s.no("促銷郵件", mentions=["9.9", "好日子", "購物節"])
    s.no("「如果哪天……提醒我」是假設", mentions=["北海道", "滑雪", "國際駕照"])
    s.quiet()
    reg(s, "ZH (台灣用語，台北，quiet 23:00–07:30)", "5, 1, 6, 3",
        "**silence**：#463 說「我現在直接看」，十二分鐘後 review 完；自己的 #421 等欣怡（特休）；男友禮拜四的胃鏡"
        "（他媽媽陪）；「如果哪天……記得提醒我」辦國際駕照（假設）；9.9 促銷；週會吐槽，一概不提")


# ------------------------------------------------------------------ 3. 杭州
def hz():
    s = Scenario("zh-hz-pr-2208-mingtian-xiawu-zaikan-shadow-mode-deng-wangjun-coco-dashboard-missed",
                 "haoran", "Asia/Shanghai", "2026-11-23 09:30", "2026-11-25 18:00",
                 quiet=("23:00", "08:00"), prefix="hr", github_login="haoran-zhou")
    repo = "xiaoxiang-tech/risk-engine"
    p2208 = PR(repo, 2208, "Refactor rule cache eviction to LRU",
               "Replaces the TTL-only eviction with an LRU bounded by memory. Benchmarks in the description "
               "of #2190.", "siyu-chen", "refactor/rule-cache-lru", "2026-11-23T05:50:00Z", commits=9,
               additions=612, deletions=287, changed_files=18, labels=["needs-review"])
    p2211 = PR(repo, 2211, "Add shadow mode for new scoring model",
               "Runs the v3 scoring model alongside v2 and logs the diff, no decisions change.",
               "haoran-zhou", "feat/shadow-scoring", "2026-11-23T07:40:00Z", commits=4,
               additions=205, deletions=11, changed_files=7)
    s.user("2026-11-23 10:05", "周一的 sync 又是 PM 在 share screen 念 PRD，我真的会谢")
    s.bot("听起来挺消耗的。")
    promise = s.user("2026-11-23 11:00", "答应了 Coco 周二下班前把 A/B 实验的 dashboard 链接发给她")
    s.bot("好，记下了：周二下班前给 Coco 发 A/B 实验 dashboard 链接。")
    g1 = s.review_requested("rr-2208", "2026-11-23 14:30", p2208, "haoran-zhou")
    later = s.user("2026-11-23 14:40", "思雨的 cache eviction PR 挺大的，今天没空，明天下午再看", "s2")
    s.bot("好的，明天下午。")
    s.review_requested("rr-2211", "2026-11-23 16:00", p2211, "wang-jun")
    s.user("2026-11-23 16:05", "我的 shadow mode PR 提了，等王骏 review，他这周在深圳 onsite，估计周四才有空")
    s.user("2026-11-23 19:00", "晚上去知味观吃了小笼包，yyds", "s3")
    s.bot("小笼包确实香。")
    s.user("2026-11-24 09:30", "今天上午 all hands，下午还有个 1:1，忙", "s4")
    s.bot("加油。")
    s.review_submitted("rv-2208", "2026-11-24 17:30", p2208, "haoran-zhou", "changes_requested",
                       "整体 OK，eviction 的并发那块需要加个锁，详见 inline。")
    s.user("2026-11-25 13:00", "下午要去滨江那边开会，打车中", "s5")
    s.bot("路上顺利。")

    s.exp("2026-11-24 13:00", "2026-11-24 17:29", ["#2208", "cache", "eviction", "思雨"], [g1, later])
    s.exp("2026-11-25 08:00", "2026-11-25 12:00", ["coco", "dashboard", "a/b"], [promise])
    s.no("他说明天下午再看，之前催就是唠叨", lo="2026-11-23 14:41", hi="2026-11-24 12:59",
         mentions=["#2208", "cache", "eviction", "思雨"])
    s.no("#2208 已经 review 了", lo="2026-11-24 17:31", mentions=["#2208", "cache", "eviction", "思雨"])
    s.no("#2211 是他自己的 PR，在等王骏", lo="2026-11-23 16:00", mentions=["#2211", "shadow mode", "王骏"])
    s.no("答应的事过了期限早上问一次，之后不再催", lo="2026-11-25 12:01", mentions=["coco", "dashboard", "a/b"])
    s.no("引用周一吐槽", mentions=["prd", "share screen", "会谢"])
    s.quiet()
    reg(s, "ZH (杭州，中英夹杂，quiet 23:00–08:00)", "5, 7, 1, 3",
        "#2208：周一 14:40 说“明天下午再看”，周二 13:00–17:29 催一次；周一 14:41 到周二 12:59 不催，17:30 review "
        "后不提。自己的 #2211 等王骏，不提。答应 Coco “周二下班前”发 A/B dashboard 链接没说做完：周三 08:00–12:00 "
        "问一次，之后不再催。不引用 PRD 吐槽")


# ------------------------------------------------------------------ 4. 成都
def cd():
    s = Scenario("zh-cd-peixun-9dian-dao-5dian-chong-liangdianban-dianhua-sandian-yike-xiya",
                 "tangjing", "Asia/Shanghai", "2026-12-14 09:00", "2026-12-17 15:00",
                 quiet=("22:30", "07:30"), prefix="tj")
    s.user("2026-12-14 09:15", "又是周一，地铁 1 号线挤成沙丁鱼罐头了，遭不住")
    s.bot("辛苦了，到了先歇一下。")
    train = s.user("2026-12-14 10:30", "周四全天要去高新区参加消防安全培训，9点到5点，要签到的，走不开")
    s.bot("好的，周四全天培训。")
    call = s.user("2026-12-14 15:10", "跟供应商刘总约了周四下午两点半电话，聊一下明年的框架合同", "s2")
    s.bot("好的。")
    teeth = s.user("2026-12-15 11:00", "明天下午三点一刻要去洗牙，在春熙路那家诊所，请了一个小时假", "s3")
    s.bot("好，记下了。")
    s.user("2026-12-15 19:40", "晚上吃了顿火锅，微辣都把我辣哭了，丢人", "s4")
    s.bot("成都的微辣也不是一般的微辣哈哈。")
    s.user("2026-12-16 16:40", "洗完牙了，医生说有点牙结石，半年后再来", "s5")
    s.bot("好的，半年后再说。")

    s.exp("2026-12-14 15:11", "2026-12-16 21:00", ["刘总", "培训", "两点半", "2:30", "电话"], [train, call],
          kind="conflict")
    s.exp("2026-12-16 07:30", "2026-12-16 15:00", ["洗牙", "春熙路"], [teeth], kind="reminder")
    s.no("冲突提前提示一次就够，周四培训开始后再提已经晚了", lo="2026-12-17 09:00", kind="conflict")
    s.no("多余：洗牙是周三唯一的事，已经有单独提醒，当天摘要不要重复",
         lo="2026-12-16 00:00", hi="2026-12-16 23:59", mentions=["洗牙", "春熙路"], kind="digest")
    s.no("洗牙已经开始/结束", lo="2026-12-16 15:16", mentions=["洗牙", "春熙路"])
    s.no("引用地铁吐槽", mentions=["沙丁鱼", "1 号线", "遭不住"])
    s.quiet()
    reg(s, "ZH (成都，quiet 22:30–07:30)", "4, 2, 8, 1, 3",
        "周四“9点到5点”消防培训与刘总“周四下午两点半”电话冲突：周一 15:11 – 周三 21:00 提示一次，周四 9 点后不再提。"
        "周二说“明天下午三点一刻”洗牙 = 周三 15:15：周三 07:30–15:00 提醒，当天摘要不重复，15:16 后不提。"
        "不引用地铁吐槽")


# ------------------------------------------------------------------ 5. 广州（静默）
def gz():
    s = Scenario("zh-gz-yincha-youjian-quxiao-baojiadan-yifa-shiyou-mangu-qianshui-silence",
                 "zixuan", "Asia/Shanghai", "2026-07-08 09:00", "2026-07-10 20:00",
                 quiet=("23:00", "07:00"), prefix="zx", email_address="zixuan.liang@yangchengmail.example.cn")
    me = "梁梓萱 <zixuan.liang@yangchengmail.example.cn>"
    s.user("2026-07-08 09:30", "又系周三，周会又拖堂，老细讲到我想瞓觉")
    s.bot("辛苦啦，开完会饮杯冻柠茶提提神。")
    s.user("2026-07-08 11:10", "周五晚上七点半约咗阿欣她们去天河饮茶", "s2")
    s.bot("好嘢，玩得开心。")
    s.user("2026-07-08 14:00", "答应咗阿 Ben 今日下班前将报价单发俾佢")
    s.bot("记下了。")
    s.user("2026-07-08 16:30", "报价单发咗俾阿 Ben 啦，搞掂")
    s.bot("👍")
    s.user("2026-07-08 20:00", "我室友礼拜六早上 6 点半嘅飞机去曼谷，佢自己叫车去白云机场", "s3")
    s.bot("祝她玩得开心。")
    s.email("yincha", "2026-07-09 15:20", "张欣 <cheungyan@example.cn>",
            [me, "何嘉敏 <kamman.ho@example.cn>"], "周五饮茶取消 😭",
            "各位，我老细临时叫我周五飞上海出差，饮茶要取消咗，下个礼拜再约！sorry sorry\n\n阿欣")
    s.user("2026-07-09 21:00", "要是哪天我真系去考潜水牌，记得提醒我先去做体检", "s4")
    s.bot("好，到时再讲。")
    s.email("newsletter", "2026-07-10 10:00", "羊城周末 <weekly@yangchengzhoumo.example.cn>", [me],
            "本周末好去处：海心沙音乐节、北京路夜市",
            "本周末海心沙音乐节开唱，北京路夜市延长营业到凌晨一点。\n\n阅读全文 | 退订",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-07-10 12:30", "今晚冇嘢做，返屋企煲剧", "s5")
    s.bot("休息下都好。")

    s.silent("zh")
    s.no("引用周会吐槽", mentions=["周会", "拖堂", "老细"])
    s.no("饮茶已被阿欣的邮件取消", lo="2026-07-09 15:21", mentions=["饮茶", "天河", "阿欣"])
    s.no("报价单已经发了", lo="2026-07-08 16:31", mentions=["报价单", "阿 ben", "阿ben"])
    s.no("室友的航班是室友的事", mentions=["曼谷", "白云", "室友"])
    s.no("“要是哪天……提醒我”是假设", mentions=["潜水", "体检"])
    s.no("newsletter", mentions=["羊城周末", "海心沙", "音乐节"])
    s.quiet()
    reg(s, "ZH (广州，粤语夹普通话)", "6, 7, 1, 3",
        "**silence**：周五“七点半”天河饮茶被阿欣周四的邮件取消；答应阿 Ben 的报价单当天已发；室友礼拜六 6 点半飞曼谷"
        "（自己叫车）；“要是哪天……记得提醒我”考潜水牌（假设）；羊城周末 newsletter；周会吐槽，一概不提")


# ------------------------------------------------------------------ 6. 高雄
def khh():
    s = Scenario("zh-khh-tongyishu-zhouwu-zhongwu-yaji-gaishijian-weiya-yifa-jianbao-missed",
                 "peishan", "Asia/Taipei", "2026-10-19 08:30", "2026-10-22 21:00",
                 quiet=("22:30", "07:00"), prefix="ps", email_address="peishan.huang@gangdumail.example.tw")
    me = "黃佩珊 <peishan.huang@gangdumail.example.tw>"
    s.user("2026-10-19 08:50", "禮拜一早上捷運紅線超擠，然後 9 點的晨會又在檢討上禮拜的事，好累喔")
    s.bot("辛苦了，先喝杯咖啡。")
    s.user("2026-10-19 10:20", "跟阿哲說好禮拜二下班前把尾牙的場地報價整理給他", "s2")
    s.bot("好，記下來了。")
    deck = s.user("2026-10-19 10:22", "還有答應主任禮拜三之前要把新人訓練的簡報改完")
    s.bot("了解，禮拜三之前改完新人訓練簡報。")
    dent = s.user("2026-10-19 13:30", "禮拜四晚上七點半預約了牙醫洗牙，在三多路那間", "s3")
    s.bot("好的。")
    form = s.email("form", "2026-10-19 15:00", "陳老師 <chen.teacher@cianjhen-es.example.edu.tw>", [me],
                   "四年二班 校外教學家長同意書",
                   "黃媽媽您好：\n\n下週三的校外教學（科工館）需要家長同意書，附件請列印簽名後，"
                   "於週五中午前拍照回傳給我，或請孩子帶回學校交給我。\n\n謝謝您！\n陳老師")
    moved = s.email("dentist", "2026-10-20 11:00", "美齒牙醫診所 <booking@meichi-dental.example.tw>", [me],
                    "預約時間異動通知",
                    "黃小姐您好：\n\n因醫師 10/22（四）晚上臨時有事，您的洗牙預約改到 10/21（三）晚上 6:30，"
                    "地點不變（三多路）。如需再調整請來電 07-335-xxxx。\n\n美齒牙醫診所 敬上")
    s.user("2026-10-20 16:00", "尾牙場地報價整理好傳給阿哲了，他說 OK", "s4")
    s.bot("讚！")
    s.user("2026-10-21 12:20", "午餐吃了鹽埕的鱔魚意麵，超讚", "s5")
    s.bot("聽起來好好吃。")

    s.exp("2026-10-19 15:15", "2026-10-22 21:00", ["同意書", "校外教學", "陳老師"], [form], kind="follow_up")
    s.exp("2026-10-21 15:00", "2026-10-21 18:15", ["牙醫", "洗牙", "三多路"], [moved, dent], kind="reminder")
    s.exp("2026-10-22 07:00", "2026-10-22 12:00", ["新人訓練", "簡報", "主任"], [deck])
    s.no("洗牙已改到禮拜三 6:30，已經開始/結束；禮拜四的提醒是照舊時間",
         lo="2026-10-21 18:31", mentions=["牙醫", "洗牙", "三多路"])
    s.no("多餘：洗牙是禮拜三唯一的事，已有單獨提醒，當天摘要不要重複",
         lo="2026-10-21 00:00", hi="2026-10-21 23:59", mentions=["牙醫", "洗牙", "三多路"], kind="digest")
    s.no("尾牙報價已經傳給阿哲了", lo="2026-10-20 16:01", mentions=["尾牙", "阿哲", "場地報價"])
    s.no("答應的事過了期限早上問一次，之後不再催", lo="2026-10-22 12:01", mentions=["新人訓練", "簡報", "主任"])
    s.no("引用晨會吐槽", mentions=["晨會", "紅線", "檢討"])
    s.quiet()
    reg(s, "ZH (台灣用語，高雄，quiet 22:30–07:00)", "6, 7, 2, 4, 1, 3",
        "陳老師郵件「附件請列印簽名後，於週五中午前拍照回傳給我」（無問號）：週一 15:15 – 週四 21:00 跟進一次。"
        "牙醫「禮拜四晚上七點半」被診所郵件改到禮拜三 6:30：禮拜三 15:00–18:15 提醒，當天摘要不重複，之後（含禮拜四）不提。"
        "尾牙報價答應禮拜二、禮拜二已傳：之後不提。新人訓練簡報答應「禮拜三之前」沒說做完：禮拜四 07:00–12:00 "
        "問一次，之後不再催。晨會吐槽不提")


# ------------------------------------------------------------------ 7. 上海
def sh():
    s = Scenario("zh-sh-lingchen-0040-mingtian-jiao-yaoshi-xiazhouer-juzhuzheng-zhouwu-banjia",
                 "yifan", "Asia/Shanghai", "2026-04-13 09:00", "2026-04-17 20:00",
                 quiet=("23:00", "07:30"), prefix="yf")
    s.user("2026-04-13 09:30", "周一开周会，老板又画饼，说今年一定上市，这话听了三年了")
    s.bot("哈哈，饼还挺大。")
    s.user("2026-04-13 11:20", "下周二下午两点半要去徐汇那边办居住证续签，材料得提前准备好", "s2")
    s.bot("好的，记下了。")
    keys = s.user("2026-04-14 00:40", "睡不着。明天下午三点约了房东在小区门口交接钥匙，新房子终于可以搬了", "s3")
    s.bot("恭喜！快去睡吧。")
    s.user("2026-04-14 12:10", "中午随便吃了碗葱油拌面", "s4")
    s.bot("简单也香。")
    s.user("2026-04-14 17:30", "钥匙拿到了！房东人还挺好，送了我一盆绿萝", "s5")
    s.bot("恭喜乔迁！")
    move = s.user("2026-04-15 10:00", "周五晚上搬家公司 7 点来，得这两天把东西打包好", "s6")
    s.bot("好，周五晚上 7 点搬家公司。")
    s.user("2026-04-16 20:00", "打包打到崩溃，原来我有这么多杯子", "s7")
    s.bot("杯子党实锤了。")

    s.exp("2026-04-14 07:30", "2026-04-14 14:45", ["钥匙", "房东"], [keys], kind="reminder")
    s.exp("2026-04-17 13:00", "2026-04-17 18:45", ["搬家"], [move], kind="reminder")
    s.no("凌晨 0:40 说的“明天”是周二当天；周二 15:00 已交接，之后（包括周三）再提就错了",
         lo="2026-04-14 15:01", mentions=["钥匙", "房东", "交接"])
    s.no("周一说的“下周二”是 4 月 21 日，不是明天 4 月 14 日",
         lo="2026-04-14 00:00", hi="2026-04-14 23:59", mentions=["居住证"])
    s.no("居住证续签在 4 月 21 日，周一到周三就提醒太早", lo="2026-04-13 11:21", hi="2026-04-15 23:59",
         mentions=["居住证"], kind="reminder")
    s.no("搬家公司已经到了", lo="2026-04-17 19:01", mentions=["搬家"])
    s.no("引用周会吐槽", mentions=["画饼", "上市"])
    s.no("照抄凌晨原话而不是写一条提醒", mentions=["睡不着", "终于可以搬了"])
    s.quiet()
    reg(s, "ZH (上海，quiet 23:00–07:30)", "8, 2, 1, 3",
        "周二凌晨 0:40 说“明天下午三点”交钥匙 = 周二当天：周二 07:30–14:45 提醒，15:01 后（包括周三）不提。"
        "周一说“下周二下午两点半”居住证续签 = 4/21：周二 4/14 一概不提，周一到周三不发提醒。"
        "周三说“周五晚上搬家公司 7 点来”：周五 13:00–18:45 提醒。不引用画饼吐槽")


# ------------------------------------------------------------------ 8. 悉尼（静默）
def syd():
    s = Scenario("zh-syd-wip-tucao-nanpengyou-ultrasound-jujue-tixing-roommate-flight-checklist-yifa-silence",
                 "qingyang", "Australia/Sydney", "2026-03-10 08:00", "2026-03-12 20:00", prefix="qy",
                 email_address="qingyang.xu@bondimail.example.com.au")
    me = "Qingyang Xu <qingyang.xu@bondimail.example.com.au>"
    s.user("2026-03-10 08:45", "Tuesday 的 WIP meeting 又 overrun 了半小时，manager 一直在 deep dive 一个没人关心的 ticket")
    s.bot("辛苦，会后喝杯 flat white 回回血。")
    s.user("2026-03-10 12:30", "我男朋友周四早上 7 点在 RPA 做 ultrasound，他自己开车去，我就不陪了", "s2")
    s.bot("希望一切顺利。要不要周四早上提醒你给他发个消息？")
    s.user("2026-03-10 12:31", "不用啦，他不喜欢别人大惊小怪的")
    s.bot("好的，那我就不提醒了。")
    s.user("2026-03-10 19:00", "roommate 周三凌晨 5 点的 flight 去墨尔本，她说自己叫 Uber，不用管她", "s3")
    s.bot("OK。")
    s.user("2026-03-11 09:30", "上周答应 Chloe 的 onboarding checklist 昨晚已经发给她了", "s4")
    s.bot("👍")
    s.email("promo", "2026-03-11 10:00", "Harbourline Outlet <offers@harbourline.example.com.au>", [me],
            "Autumn sale: 40% off storewide",
            "Autumn has landed. 40% off storewide this week only, free delivery over $80.\n\nShop now\n\nUnsubscribe",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-03-11 20:30", "要是哪天我真的报名 City2Surf，记得提醒我提前三个月开始练跑", "s5")
    s.bot("好，到时候再说。")
    s.user("2026-03-12 12:15", "今天午饭 pho，楼下那家越南粉店排队排疯了", "s6")
    s.bot("人气店啊。")

    s.silent("zh")
    s.no("引用 WIP meeting 吐槽", mentions=["wip meeting", "overrun", "deep dive"])
    s.no("男朋友的 ultrasound 是他的事，而且她拒绝了提醒", mentions=["ultrasound", "rpa", "男朋友"])
    s.no("室友的航班是室友的事", mentions=["roommate", "墨尔本", "melbourne", "uber"])
    s.no("onboarding checklist 已经发了", mentions=["onboarding checklist", "onboarding"])
    s.no("促销邮件", mentions=["harbourline", "autumn sale", "40%"])
    s.no("“要是哪天……提醒我”是假设", mentions=["city2surf", "练跑"])
    s.quiet()
    reg(s, "ZH (悉尼，中英夹杂)", "1, 7, 6, 3",
        "**silence**：WIP meeting 吐槽；男朋友周四 7 点的 ultrasound（他自己去，她也拒绝了提醒）；室友周三凌晨 5 点的航班"
        "（自己叫 Uber）；答应 Chloe 的 onboarding checklist 已发；“要是哪天……提醒我”练跑（假设）；促销，一概不提")


# ------------------------------------------------------------------ 9. 武汉
def wh():
    s = Scenario("zh-wh-pr-5127-kaiwanhui-zaikan-protobuf-deng-zhiqiang-jucan-quxiao-tijian-baogao",
                 "kaiwen", "Asia/Shanghai", "2026-09-08 09:00", "2026-09-10 20:00",
                 quiet=("22:30", "07:30"), prefix="kw", github_login="kaiwen-liu",
                 email_address="kaiwen.liu@guangguimail.example.cn")
    me = "刘凯文 <kaiwen.liu@guangguimail.example.cn>"
    repo = "jianghan-labs/logistics-core"
    p5127 = PR(repo, 5127, "Batch geocoding requests for route planner",
               "Groups geocoding calls per route (max 50) instead of one call per stop. Cuts planner time ~40%.",
               "shuting-he", "perf/batch-geocoding", "2026-09-08T01:50:00Z", commits=5,
               additions=298, deletions=96, changed_files=8, labels=["needs-review"])
    p5130 = PR(repo, 5130, "Upgrade protobuf to v25",
               "Regenerates stubs and drops the v3 compatibility shim.", "kaiwen-liu", "chore/protobuf-25",
               "2026-09-08T03:20:00Z", commits=2, additions=1420, deletions=1388, changed_files=41)
    s.user("2026-09-08 09:40", "光谷这边早上堵得要死，公交坐了一个小时，周二也这么堵，离谱")
    s.bot("辛苦，到了先吃个热干面压压惊。")
    g1 = s.review_requested("rr-5127", "2026-09-08 10:20", p5127, "kaiwen-liu")
    after = s.user("2026-09-08 10:25", "舒婷的 geocoding PR 我下午三点那个周会开完再看，会估计开到四点")
    s.bot("好，开完会再看。")
    s.review_requested("rr-5130", "2026-09-08 11:30", p5130, "zhao-zhiqiang")
    s.user("2026-09-08 11:35", "我的 protobuf 升级等志强看，他在休婚假，下周才回来")
    s.bot("了解。")
    s.user("2026-09-08 12:30", "周四晚上 7 点跟大学同学在楚河汉街吃饭，好几年没见了", "s2")
    s.bot("好好聚聚！")
    hr = s.email("hr", "2026-09-09 09:00", "行政部 王敏 <wangmin.admin@jianghanlabs.example.cn>", [me],
                 "年度体检报告收集",
                 "各位同事：\n\n请于本周四下班前将今年的体检报告扫描件发到 hr@jianghanlabs.example.cn，"
                 "用于年度健康档案更新。\n\n行政部 王敏")
    s.review_submitted("rv-5127", "2026-09-09 10:00", p5127, "kaiwen-liu", "approved",
                       "批量大小可以再调，先合吧。")
    s.user("2026-09-09 12:20", "中午去吃了户部巷的豆皮，撑了", "s3")
    s.bot("豆皮管饱。")
    s.email("jucan", "2026-09-09 14:10", "老班长 <banzhang.li@example.cn>",
            [me, "同学群 <class2014@example.cn>"], "周四聚餐取消",
            "各位，临时要加班赶项目，周四的聚餐先取消，下个月再约，对不住了！\n\n老班长")
    s.user("2026-09-10 10:30", "体检报告刚扫完发给行政了", "s4")
    s.bot("好的。")

    s.exp("2026-09-08 16:00", "2026-09-09 09:59", ["#5127", "geocoding", "舒婷"], [g1, after])
    s.exp("2026-09-09 09:15", "2026-09-10 10:29", ["体检报告", "行政", "扫描件"], [hr], kind="follow_up")
    s.no("他说三点的周会开完（约四点）再看，之前催就是唠叨", lo="2026-09-08 10:26", hi="2026-09-08 15:59",
         mentions=["#5127", "geocoding", "舒婷"])
    s.no("#5127 已经 review 了", lo="2026-09-09 10:01", mentions=["#5127", "geocoding", "舒婷"])
    s.no("#5130 是他自己的 PR，在等志强", lo="2026-09-08 11:30", mentions=["#5130", "protobuf", "志强"])
    s.no("聚餐已被老班长的邮件取消", lo="2026-09-09 14:11", mentions=["聚餐", "楚河汉街", "汉街", "同学"])
    s.no("体检报告已经发了", lo="2026-09-10 10:31", mentions=["体检报告", "扫描件"])
    s.no("引用通勤吐槽", mentions=["离谱", "公交坐了"])
    s.quiet()
    reg(s, "ZH (武汉，quiet 22:30–07:30)", "5, 6, 1, 3",
        "#5127：“下午三点那个周会开完再看，估计开到四点”，周二 16:00 – 周三 09:59 催一次；10:26–15:59 不催，周三 10:00 "
        "review 后不提。自己的 #5130 等志强（婚假），不提。行政邮件“请于本周四下班前将体检报告扫描件发到……”（无问号）："
        "周三 09:15 – 周四 10:29 跟进，发完后不提。周四晚 7 点同学聚餐被邮件取消：之后不提。不引用通勤吐槽")


# ------------------------------------------------------------------ 10. 纽约（静默）
def nyc():
    s = Scenario("zh-nyc-lab-meeting-tucao-shiyou-bazhichi-pigai-yichuan-yosemite-jucan-jujue-silence",
                 "ruoxi", "America/New_York", "2026-02-02 09:00", "2026-02-04 20:00",
                 quiet=("23:00", "08:00"), prefix="rx", email_address="ruoxi.zhang@morningside.example.edu")
    me = "Ruoxi Zhang <ruoxi.zhang@morningside.example.edu>"
    s.user("2026-02-02 09:50", "Monday 的 lab meeting 又 run 了两个小时，PI 一直在讲他 2009 年的 paper 🙃")
    s.bot("两小时有点狠，先去买杯咖啡吧。")
    s.user("2026-02-02 10:30", "答应了 Prof. Kim 周二中午前把 midterm 的批改传到 Canvas", "s2")
    s.bot("记下了。")
    s.user("2026-02-02 13:00", "室友 Emily 周三早上去 NYU Langone 拔智齿，她男朋友陪她去", "s3")
    s.bot("希望她恢复得快。")
    s.user("2026-02-02 22:10", "批改全部传完 Canvas 了，提前收工 ✅", "s4")
    s.bot("效率很高！")
    s.user("2026-02-03 11:00", "要是我以后真的去 Yosemite 露营，提醒我提前半年抢营地", "s5")
    s.bot("好，到时候再说。")
    s.email("promo", "2026-02-03 14:00", "Hudson Yard Outlet <deals@hudsonyardoutlet.example.com>", [me],
            "Presidents' Day sale starts now: 30% off",
            "Early access for members: 30% off outerwear and boots through February 16.\n\nShop now\n\nUnsubscribe",
            labels=("INBOX", "CATEGORY_PROMOTIONS"))
    s.user("2026-02-03 18:30", "周五晚上 lab 聚餐在 Koreatown，不过我大概率不去了，paper deadline 要命", "s6")
    s.bot("要不要周五下午提醒你一下，万一想去呢？")
    s.user("2026-02-03 18:31", "不用，真的不去了")
    s.bot("好的。")
    s.user("2026-02-04 12:00", "今天中午又是 Halal Guys，穷学生的快乐", "s7")
    s.bot("经典。")

    s.silent("zh")
    s.no("引用 lab meeting 吐槽", mentions=["lab meeting", "2009", "两个小时"])
    s.no("批改已经传完了", lo="2026-02-02 22:11", mentions=["prof. kim", "批改", "canvas", "midterm"])
    s.no("室友拔智齿是室友的事", mentions=["emily", "智齿", "langone"])
    s.no("“要是……提醒我”是假设", mentions=["yosemite", "露营", "营地"])
    s.no("促销邮件", mentions=["hudson yard", "presidents' day", "30%"])
    s.no("她拒绝了聚餐提醒", mentions=["聚餐", "koreatown"])
    s.quiet()
    reg(s, "ZH (纽约留学生，中英夹杂，quiet 23:00–08:00)", "1, 7, 6, 3",
        "**silence**：lab meeting 吐槽；答应 Prof. Kim 周二中午前传批改，周一 22:10 已传完；室友 Emily 拔智齿（男朋友陪）；"
        "“要是……提醒我”Yosemite 抢营地（假设）；Presidents' Day 促销；周五 lab 聚餐（她拒绝了提醒），一概不提")


ALL = [bj, tpe, hz, cd, gz, khh, sh, syd, wh, nyc]

if __name__ == "__main__":
    for f in ALL:
        f()
    for m in META:
        print(m[0])
