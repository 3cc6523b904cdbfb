/**
 * The language of a text, told from the text alone (never a lang attribute), for bench:quality's
 * per-language table: first the script (Hangul, kana, Han, Cyrillic, Greek, Arabic, Hebrew, Thai,
 * Devanagari), then, for Latin text, which language's commonest short words it holds most of.
 * Written here, not taken from src/ (the product's own guess, rules/languages.ts, is what is being
 * measured) nor from npm (franc and kin weigh megabytes of trigram tables for ~400 languages; the
 * sets hold about twenty, all of which a script or twenty stop words tell apart on a whole article).
 * Pure functions, no I/O. 'und' when the text says nothing clear.
 */

/** Each Latin-script language's commonest short words: ones other languages here rarely use. */
const STOP_WORDS: Readonly<Record<string, string>> = {
  en: 'the and of to is that with for are this was have not by from at which has were they been',
  de: 'der die und das ist nicht sich mit auf den dem ein eine auch als für wird von zu im bei nach wurde sind',
  fr: 'le la les et des est une dans pour qui que pas sur au aux du avec ce cette sont ont été mais plus',
  es: 'el la los las y del que en por una con para es se al lo como más pero sus fue este ha',
  pt: 'o a os as e do da dos das que em um uma para com não por é mais foi são ao pelo pela seu também',
  it: 'il la di che e è un una per non con del della sono gli le nel alla anche più come ha dei',
  nl: 'de het een en van is dat op te in niet zijn met voor er ook aan om wordt bij maar naar',
  pl: 'i w się na nie z do że jest to o jak po od za przez oraz już tak ale czy który także',
  cs: 'a v se na je že s z do to o jako by ale pro také jsou které byl jeho podle již než',
  sv: 'och att det som en på är av för med till den har inte om ett var men också kan från',
  nb: 'og i det som en på er av for med til den har ikke om et var men også kan fra seg',
  da: 'og i det som en på er af for med til den har ikke om et var men også kan fra sig',
  tr: 've bir bu da de için ile olarak olan çok daha gibi ne ama her kadar sonra değil ise',
  id: 'yang dan di ini itu dengan untuk dari dalam tidak akan pada juga ke ada karena oleh bisa',
  vi: 'và của là có được trong cho những các không một người này với đã khi để',
  ro: 'și în de la cu pe că nu din o un este mai care sunt pentru au fost sau',
  fi: 'ja on ei se että oli ovat mutta kun myös tai hän sen jo joka ole kuin',
  hu: 'a az és hogy nem is egy meg van de már csak ez volt mint vagy még',
  lt: 'ir kad yra su į ne tai iš bet kaip buvo jis dar per nuo už',
  is: 'og að í á er sem til það með ekki um en var af við fyrir',
  ca: 'el la els les i de que en per amb una és no als del és va dels però',
  // Lorem ipsum, the filler of synthetic test pages: told apart so that a set can leave them out.
  la: 'lorem ipsum dolor sit amet consectetur adipisicing elit sed eiusmod tempor incididunt ut labore dolore magna aliqua',
};

const WORD_LISTS: [string, Set<string>][] = Object.entries(STOP_WORDS).map(([lang, words]) => [lang, new Set(words.split(' '))]);

/** Scripts that name their language (or a family told apart below), and the share of letters that decides. */
const SCRIPTS: [string, RegExp][] = [
  ['ko', /\p{Script=Hangul}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['el', /\p{Script=Greek}/u],
  ['ar', /\p{Script=Arabic}/u],
  ['he', /\p{Script=Hebrew}/u],
  ['th', /\p{Script=Thai}/u],
  ['hi', /\p{Script=Devanagari}/u],
];

export function detectLanguage(text: string): string {
  const counts = new Map<string, number>();
  let letters = 0;
  for (const char of text) {
    if (!/\p{L}/u.test(char)) continue;
    letters++;
    const script = SCRIPTS.find(([, pattern]) => pattern.test(char));
    if (script) counts.set(script[0], (counts.get(script[0]) ?? 0) + 1);
  }
  if (letters === 0) return 'und';
  const share = (name: string) => (counts.get(name) ?? 0) / letters;
  // Japanese mixes kana into Han; Chinese has none.
  if (share('kana') > 0.05) return 'ja';
  if (share('ko') > 0.3) return 'ko';
  if (share('han') > 0.3) return 'zh';
  if (share('cyrillic') > 0.3) return cyrillic(text);
  for (const name of ['el', 'ar', 'he', 'th', 'hi']) if (share(name) > 0.3) return name;
  return latin(text);
}

/** Ukrainian writes і, ї, є, ґ, which Russian lacks; Russian writes ы, э, ъ, which Ukrainian lacks. */
function cyrillic(text: string): string {
  const ukrainian = (text.match(/[іїєґ]/giu) ?? []).length;
  const russian = (text.match(/[ыэъ]/giu) ?? []).length;
  return ukrainian > russian ? 'uk' : 'ru';
}

/** The Latin-script language whose stop words the text holds most of, when it has at least 5 of them. */
function latin(text: string): string {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().split(/[^\p{L}]+/u)) {
    if (!word) continue;
    for (const [lang, words] of WORD_LISTS) if (words.has(word)) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return best && best[1] >= 5 ? best[0] : 'und';
}
