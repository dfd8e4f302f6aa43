/** Knowledge-base entries (placeholder: the signaling/replies work fills in answers and media). */
export interface KnowledgeEntry {
  id: string;
  questions: { en: string[]; zh: string[] };
}

export const ENTRIES: KnowledgeEntry[] = [
  { id: 'stores', questions: { en: ['where is the nearest store'], zh: ['最近的门店在哪里'] } },
  { id: 'hours', questions: { en: ['what are your opening hours'], zh: ['你们的营业时间是什么'] } },
  { id: 'discount', questions: { en: ['tell me about the discount'], zh: ['介绍一下优惠活动'] } },
  { id: 'products', questions: { en: ['show me the new products'], zh: ['给我看看新产品'] } },
];
