/**
 * The demo retail assistant's knowledge base, in English and Chinese.
 *
 * `questions` are matched exactly (after normalisation) and also feed the
 * speech service's grammar, so English questions use plain dictionary words
 * (no digits, no apostrophes). `keywords` catch paraphrases. Answers stay at
 * one to three short sentences so the avatar's speech stays short.
 * Asset paths are origin-relative; replies turn them into absolute URLs.
 */
export type AnswerPart =
  | { text: string }
  | { image: string }
  | { video: string }
  | { web: string }
  | { related: string[] };

/** The entries' languages; zh is simplified Chinese, and traditional is made from it. */
export type EntryLang = 'en' | 'zh';

export interface KnowledgeEntry {
  id: string;
  questions: Record<EntryLang, string[]>;
  keywords: Record<EntryLang, string[]>;
  answer: Record<EntryLang, AnswerPart[]>;
}

export const ASSET_PATHS = {
  storeFront: '/assets-standin/images/store-front.png',
  newProducts: '/assets-standin/images/new-products.png',
  discountPoster: '/assets-standin/images/discount-poster.png',
  productVideo: '/assets-standin/video/product.webm',
  promoPage: '/assets-standin/pages/promo.html',
} as const;

/** The four questions of docs/contract.md C10, in both languages. */
const Q = {
  stores: { en: 'where is the nearest store', zh: '最近的门店在哪里' },
  hours: { en: 'what are your opening hours', zh: '你们的营业时间是什么' },
  discount: { en: 'tell me about the discount', zh: '介绍一下优惠活动' },
  products: { en: 'show me the new products', zh: '给我看看新产品' },
} as const;

/**
 * About 25 s of the avatar's speech (espeak-ng at its default rate): the greeting under the
 * `greeting-long` fault, and the long reply the tests and benchmarks have said over.
 */
export const STORE_TOUR = [
  'Welcome to our flagship store. Let me tell you about everything we have this season.',
  'On the ground floor you will find shoes, bags and accessories from more than forty brands.',
  'The first floor has clothing for women and men, with a tailoring service that takes about a week.',
  'Children are on the second floor, next to the cafe, which serves breakfast until eleven.',
  'Members collect points on every purchase and get free delivery on orders over fifty dollars.',
].join(' ');

export const ENTRIES: KnowledgeEntry[] = [
  {
    id: 'greeting',
    questions: { en: ['hello', 'good morning', 'good afternoon'], zh: ['你好', '您好'] },
    keywords: { en: ['hello', 'hi', 'hey'], zh: ['你好', '您好', '嗨'] },
    answer: {
      en: [
        { text: 'Hello, I am Ava, your shopping assistant. Ask me about our stores, opening hours, discounts or new products.' },
        { related: [Q.stores.en, Q.hours.en, Q.discount.en, Q.products.en] },
      ],
      zh: [
        { text: '您好，我是您的购物助手艾娃。您可以问我门店、营业时间、优惠活动或新品。' },
        { related: [Q.stores.zh, Q.hours.zh, Q.discount.zh, Q.products.zh] },
      ],
    },
  },
  {
    id: 'stores',
    questions: { en: [Q.stores.en, 'where is your store', 'where can i buy your products'], zh: [Q.stores.zh, '你们的门店在哪里'] },
    keywords: { en: ['store', 'stores', 'shop', 'address', 'located', 'location', 'nearest', 'where'], zh: ['门店', '商店', '地址', '在哪', '哪里'] },
    answer: {
      en: [
        { text: 'Our nearest store is the flagship store at one Harbour Road, next to Central Station.' },
        { image: ASSET_PATHS.storeFront },
        { text: 'You can also find us on the second floor of City Mall.' },
        { related: [Q.hours.en] },
      ],
      zh: [
        { text: '离您最近的是海港路一号的旗舰店，就在中央车站旁边。' },
        { image: ASSET_PATHS.storeFront },
        { text: '城市商场二楼也有我们的门店。' },
        { related: [Q.hours.zh] },
      ],
    },
  },
  {
    id: 'hours',
    questions: { en: [Q.hours.en, 'when do you open', 'when do you close'], zh: [Q.hours.zh, '几点开门', '几点关门'] },
    keywords: { en: ['hours', 'open', 'opening', 'close', 'closing', 'time', 'when'], zh: ['营业', '时间', '几点', '开门', '关门'] },
    answer: {
      en: [
        { text: 'We are open every day from ten in the morning to nine in the evening.' },
        { text: 'On public holidays we close at six.' },
        { related: [Q.stores.en] },
      ],
      zh: [
        { text: '我们每天早上十点到晚上九点营业。' },
        { text: '法定节假日晚上六点关门。' },
        { related: [Q.stores.zh] },
      ],
    },
  },
  {
    id: 'discount',
    questions: { en: [Q.discount.en, 'are there any discounts', 'do you have any coupons'], zh: [Q.discount.zh, '有什么优惠', '有优惠券吗'] },
    keywords: {
      en: ['discount', 'discounts', 'sale', 'offer', 'offers', 'coupon', 'coupons', 'promotion', 'deal', 'deals', 'cheaper', 'price'],
      zh: ['优惠', '折扣', '打折', '促销', '活动', '优惠券', '便宜'],
    },
    answer: {
      en: [
        { text: 'This week every new member gets twenty percent off the first order.' },
        { image: ASSET_PATHS.discountPoster },
        { web: ASSET_PATHS.promoPage },
        { text: 'The offer ends on Sunday.' },
        { related: [Q.products.en] },
      ],
      zh: [
        { text: '本周新会员首单可享八折优惠。' },
        { image: ASSET_PATHS.discountPoster },
        { web: ASSET_PATHS.promoPage },
        { text: '活动到本周日结束。' },
        { related: [Q.products.zh] },
      ],
    },
  },
  {
    id: 'products',
    questions: { en: [Q.products.en, 'what is new', 'what products do you have'], zh: [Q.products.zh, '有什么新品', '你们有什么产品'] },
    keywords: { en: ['new', 'product', 'products', 'arrivals', 'collection', 'latest', 'items'], zh: ['新品', '新产品', '产品', '上新', '新款', '商品'] },
    answer: {
      en: [
        { text: 'Here are the new arrivals of our spring collection.' },
        { image: ASSET_PATHS.newProducts },
        { video: ASSET_PATHS.productVideo },
        { text: 'Play the video to see them in action.' },
        { related: [Q.discount.en] },
      ],
      zh: [
        { text: '这是我们春季系列的新品。' },
        { image: ASSET_PATHS.newProducts },
        { video: ASSET_PATHS.productVideo },
        { text: '播放视频可以查看产品演示。' },
        { related: [Q.discount.zh] },
      ],
    },
  },
  {
    id: 'goodbye',
    questions: { en: ['goodbye', 'thank you'], zh: ['再见', '谢谢'] },
    keywords: { en: ['bye', 'goodbye', 'thanks', 'thank'], zh: ['再见', '拜拜', '谢谢', '感谢'] },
    answer: {
      en: [{ text: 'Thank you for visiting. Have a nice day!' }],
      zh: [{ text: '感谢您的光临，祝您愉快！' }],
    },
  },
];

/** The polite answer when nothing matches; not part of the speech grammar. */
export const FALLBACK: KnowledgeEntry = {
  id: 'fallback',
  questions: { en: [], zh: [] },
  keywords: { en: [], zh: [] },
  answer: {
    en: [
      { text: 'Sorry, I did not catch that. I can help with our stores, opening hours, discounts and new products.' },
      { related: [Q.stores.en, Q.hours.en, Q.discount.en, Q.products.en] },
    ],
    zh: [
      { text: '抱歉，我没有听懂。我可以为您介绍门店、营业时间、优惠活动和新品。' },
      { related: [Q.stores.zh, Q.hours.zh, Q.discount.zh, Q.products.zh] },
    ],
  },
};

export const GREETING_ID = 'greeting';
