"""The single Chinese characters that are words worth matching: nouns and adjectives.

The tokenizer drops a one-character word that jieba cuts out of a longer run ("猫还是狗" is cut
猫 / 还是 / 狗): most of them are particles, pronouns, prepositions, measure words and light
verbs (的, 把, 个, 用, 打), which match nearly every page. But a noun or an adjective is the
subject of a question as often as "cat" or "small" is in English ("叔本华的宠物是猫还是狗",
"索引是不是总比模型小"), and English keeps its one-syllable nouns. So these are kept.

Made from jieba's dictionary (its dict.txt, the words rjieba compiles in, MIT licence): every
one-character word tagged a noun (n, ng), a place (ns), another proper noun (nz), an
abbreviation (j) or an adjective (a), used fewer than 100,000 times in jieba's counts (the
commonest, 人, 大 and 时, are as much function words as nouns: "调研时"), and not a stop-word.
Regenerate with `python -m wikiq.text.han_singles PATH/TO/jieba/dict.txt`; the tokenizer's
fingerprint covers this file, so a change rebuilds every term cache.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

TAGS = frozenset({"n", "ng", "ns", "nz", "j", "a"})
MAX_COUNT = 100_000

SINGLE_HAN_WORDS: frozenset[str] = frozenset(
    "丈丑专世丙业东丞严丫丰丹久义乍乏乐乒乖乙乞乡书乳事云亘亚产京亭亳仁仄仆仇仕仗仙仡仪价企伊伎众优伙伞传伢伥伦伪估伶佃低体佛佝佣佤佬佳侄侉侥侨侪俄俊俏俑俗俘信俳倔倥倭债值倾假偏健傀"
    "傈傣傧傲傻僚僧僮僵儋儒儿兄光兔兖党全公兵兽冀内冈军冠冢冤冥冰冷净凄凳凹函刀刃刑创利制券刽剑剖剡剧力功劣劲势勃勇勋勐勤匈匕化北匙匠匣匪区医匾卉华协卒单南卡卤卦卫危卵厄厅历厕厚厝原"
    "厢厦厨厩参叉友双叔叙叛古吏君吝吡吲呋呓味命咎咏咖咪咫咸哌哔哥哨哮哲唁唢唿商啤啮喀喇喉喹嗅嗉嗓嗝嗣嗽嘈嘧嘴嘹噜噤器噩噪噱噻嚏囚囟团囹固国图圃圆圣圪圭圹坊坏坑坛坝坞坟坡坤坦坪坯坷垃"
    "垠垣垸埂埃城埘埙域埠基堇堡堤堰塑塔塘塬塾墓墙墟壁壑壕壤士声壳处夙夫央头夷夹奖奢奴奸好妃妆妇妈妓妖妙妥妯妹妻姊姐姑姘姥姨姻姿威娃娇娑娘娥娼婆婉婊婚婢婴婵婶婺婿媒媳嫂嫦嫩嬷子孕字孝"
    "孢季孤学孩孬孱孺宁宅宏官实客室宪宴容宽寂密寒寓寝察寡寨寰寺寿小少尕尖尘尴尸尾尿局屁屉屋屎屏屯山屿岔岗岘岛岫岭岱岷岸峡峨峭崂崆崖崽嵊嵩巅川州工巧差巯巴巷巾币市帆师帏帘帚帛帝席帷幂"
    "幅幔幛幡平幸幻幼幽广床序庐庑库庖店庙庭庵庶庸廊延弊弋弟弦弧弩弱强彗彝形彩彰役径徭微德徽心志快忱忸忿态怅思性恙恶悉悠悦悭悲情惆惋惝惨惭惶意愕慌慢憔憨憾懒戏成戒战戟房扁扉手技抚报拇"
    "拗拮指挎挪挹损换捷措掮搪摩撸支政故效敌敕敦数文斋斐斑新方旅旋旌族旗旦旧旨早旮旱旺昆明易星昼景晶智暖暴暹曙曳朋朔朝期朦木机权杈杉杏杖杞杠条板枕林果枞枢枣枪枭枯枷枸柄柑柘柚柜柞柩柬"
    "柱柳柽柿栀栅标栈栎栏栓栝校栲样核格桃桄桅案桉桌桎桐桠桡档桥桨梃梆梢梦梨梭梯梵棉棋棕棘棚棠棣森棱棺椅植椎椒椭椰椴楔楝楠楦楫楷楼概榆榔榕榜榧榨榫榴榻槌槎槟槲槽樟模樯樵樽橄橘橙橛橡橱"
    "橹檐欧歉歌歙步武歹残殖殡殿母毓毡毯毽氍氏民气氖氙氛氟氢氤氦氧氨氩氮氯氰水永汀汁汇汉汊汕汞汤汴汶汽汾沁沂沐沛沟沥沧沪沫沭沱河油沼沽泉泊泌泔法泗波泣泥泪泰泸洛洞津洮洱洲洼流浅浆浊济"
    "浏浑浒浓浔浙浚浜浪浴海涅涎涟涡涤涧涩涪涯液涿淄淅淋淑淠淡淮深渊渑渔渝渠渥渭港渴湖湘湛湟湿源溢溧溪溴溶溽滁滂滇滋滏满滦滨滩滹漠漩漫漯漳潇潍潞潢潦潭潮潼澄澉澎澜澡澧澳澶激濑濮瀑瀚瀛"
    "火灯灰灶灾灿炊炎炔炕炭炮炳炸烃烈烙烛烟烩热烷烽焦焰煤照煳熔熙熟熹燃燧爪爵父爷爸爹版牌牙牛牝牢牦牧牯牲犀犁犄犊犟犬状犷狍狒狗狡狩狭狮狰狴狸狼猕猖猢猩猪猫猴猿獐獠玫玳玺玻珊珐珙珞珠"
    "班珲球琅理琉琴琵琼瑕瑞瑟瑰瑶璎瓜瓢瓤瓮瓯瓶瓷甏甜甥甬田甲电男甸画畅界畔畚畲畸畹畿疆疔疗疙疟疤疥疫疮疱疳疵疾痂病痈痒痔痕痘痛痞痢痣痤痨痰痱痴痹痼瘟瘤瘦瘪瘰瘴瘾癃癍癔癖癞癣癫白百皂"
    "皇皓皖皮皴盆盈盐盔盟盱盲省眉眚眶眷眸眼睫睾瞳矍矜矢矩矬短矮石矸矽矾矿砀码砂砖砗砚砝砥砧砬砷砼砾础硅硇硒硝硫硬硼碉碌碎碑碘碟碣碱碳碴磁磐磙磬磷磺礁礼社祁祉神祠票祸禅福禳禽禾秃秆科"
    "秕秘秤秧秫秭秸秽稀程税稗稚稞稠稳稻稿穆穗穴穷穹空窄窈窑窖窟窠窿竹竿笆笊笋笔笙笤笼筋筏筐策筚筝筠筵筷简箔箝箩箫箬箭篆篙篦篮篾簧簰簸簿籁籍籼籽粉粗粤粥粪粮粲粳粹精糊糌糍糕糠糨糯紊素"
    "紧紫累红纤纨纬纯纰纲纵纸纹纺纽线绅细绉绍经绒结绞绢绥绦绪绮绯绰绳绵绶绸绿缆缎缔缘缙缥缨缰缸罂罐网罕罗署羊美羔羚羟群羧羯羰羹翅翎翡翰翼耀老耐耒耕耖耙耢耳耵耻聋职聪肇肉肋肌肘肚肛肝"
    "肠肢肤肥肩肮肱肺肿胀胁胃胆胎胖胚胞胫胭胰胴胶胸胺胼脂脆脉脊脏脐脑脓脖脚脩脲脸脾腈腋腐腕腠腥腧腭腮腰腱腹腺腼腿膀膂膈膏膘膛膜膝膻臀臂臊臌臣臭臼舅舆舌舟航舰舱舵舶舷船舾艄艇艨良艰色"
    "艳艺芍芒芗芜芝芡芤芥芦芨芫芭芯芷芸芽苋苎苏苔苕苗苘苛苞苤苦苯英苹茂茄茅茉茎茔茗茧茨茭茯茱茴茵茶茸茼荆草荔荠荤荥荧荨荫药荷荻莆莒莜莨莱莲莺莼菇菊菌菏菖菜菟菠菡菩菱菲萝萤营萱葖著葡"
    "葩葫葱葳葵葶蒜蒴蒽蓄蓉蓓蓖蔗蔬蔷蕃蕊蕙蕲蕹薄薏薪薹藁藏藓藕藩藻藿蘑蘘虎虏虔虫虬虱虹虾蚁蚂蚊蚌蚕蚜蚝蚩蚬蚯蚰蚱蚶蛆蛇蛋蛏蛐蛔蛙蛛蛲蛾蜀蜂蜃蜈蜉蜗蜘蜜蜡蜣蜥蜻蜾蝇蝈蝉蝌蝎蝗蝙蝤蝮蝰"
    "蝴蝶蝼螃螳螺螽蟋蟑蟒蟹蟾蠓蠡蠢蠹血街衙衡衢衣衩衫衬袂袈袍袖袜裁裆裙裤裥裨裳褂褐褡褥褶襄襟规角觚警计讣讯记讷诀证词诏诗诚话诟诧语诰诺课谊谍谎谕谚谜谣谰谶豆豇豌豚象豨豪豫豹貂貉貌貔"
    "贞贡财责账货质贫贱贵贼赂赃资赛赝赣赭趋趣足趾跆跋跗跛距跤路踝踪蹄蹊蹠蹩蹼身躯轨软轱轴轶轻轿辈辊辎辏辕辘辙辣辩辫辰辱辽运近远迟迦迹逍途速逻遒遗邋邑邕邗邙邛邦邪邮邯邳邻郑郓郡郧部郫"
    "郯郴郸鄞鄯鄱酉酊酋酒酚酞酥酪酬酯酰酱酵酶酷酸酽醋醍醚醛醪釉重野量釜鏊钋钍钎钒钗钙钚钛钞钠钡钢钥钨钩钬钱钳钴钵钹钺钼钽钾铀铁铂铅铈铌铕铜铝铟铠铬铭铮铱铳铵银铸链锂锅锈锉锌锑锗锚锡"
    "锣锤锥锦锨键锰锶锸锹镀镁镇镉镊镍镏镐镔镖镜镞镢镣镧镭镯镰镲长门问闲闸闺闽阀阁阄阆阇阈阉阍阑阔阖阜队阡阪阴阵阶阿际陇陌陕陛陡院陨险陵隅隐隘隙障隧隶难雀雄雅雇雉雏雕雨雪雷雹雾霉霓霜"
    "霞霪霭霰霸霹青靓面靴鞋鞍鞘鞭韧韩韬韭音韵韶顸项颅颈颊颌颍颏颐频颓题颚颛额颞颧风飓飞餐饕饤饥饭饮饱饲饴饵饷饺饼饽馅馆馊馋馍馏馒馓香馨马驭驯驴驷驸驹驼驽驿骁骄骈骊骏骠骡骨骰骶骷骸髂"
    "髋髌髑高髯鬃鬓鬣鬲鬼魁魂魄魔鱼鱿鲅鲇鲑鲜鲠鲢鲣鲤鲥鲨鲫鲮鲱鲲鲳鲶鲸鳃鳄鳇鳊鳍鳏鳔鳕鳖鳗鳙鳜鳝鳞鳟鸡鸢鸥鸦鸨鸩鸬鸭鸳鸵鸷鸸鸽鹁鹄鹅鹈鹊鹌鹗鹜鹞鹤鹦鹧鹪鹫鹭鹰鹳麂麋麒麓麝麟麸麾黄黍"
    "黑黔黟黠鼋鼎鼠鼬鼯鼹鼻鼾齐齑齿龃龅龋龌龙龛龟"
)


def evidence_terms(terms: Sequence[str]) -> list[str]:
    """The terms whose presence on a page is evidence that it covers the question: all but
    these one-character words, which help rank pages but say little about coverage, since
    whether a page holds one depends on how its text was cut (a question's 库 alone, a page's
    仓库 whole). A question of nothing else keeps them."""
    kept = [t for t in terms if t not in SINGLE_HAN_WORDS]
    return kept or list(terms)


def singles_from_dictionary(path: str) -> str:
    """The characters above, read from a jieba dict.txt (word, count, tag per line)."""
    from wikiq.text.stopwords import CJK

    chosen = set()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            word, count, tag = line.split()
            if len(word) == 1 and tag in TAGS and int(count) < MAX_COUNT and word not in CJK:
                chosen.add(word)
    return "".join(sorted(chosen))


if __name__ == "__main__":  # pragma: no cover - regenerating the table by hand
    print(singles_from_dictionary(sys.argv[1]))
