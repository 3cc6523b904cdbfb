/** Generated pages for the benchmarks: deterministic text, shaped like a news site. */

const WORDS = 'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no out up said what its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(' ');

export function words(seed: number, count: number): string {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

/** An article page shaped like a news site: navigation, an article with images, a sidebar, a footer. */
export function articlePage(n: number): string {
  const paragraphs = Array.from({ length: 10 }, (_, i) => `<p>${words(n * 100 + i, 60)}.</p>`).join('\n');
  const nav = Array.from({ length: 20 }, (_, i) => `<li><a href="/article/${(n + i) % 1000}">Section ${i}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Article ${n}</title>
<meta name="description" content="${words(n, 20)}"><style>body{font-family:sans-serif;max-width:60em;margin:auto}nav li{display:inline}</style></head>
<body><header><nav><ul>${nav}</ul></nav></header>
<main><article><h1>Article ${n}: ${words(n, 6)}</h1><p class="byline">By A. Writer</p>
<img src="/img/${n}.jpg" alt="photo"><h2>${words(n + 1, 5)}</h2>${paragraphs}
<figure><img src="/img/${n}-2.jpg" alt="chart"><figcaption>${words(n + 2, 10)}</figcaption></figure></article>
<aside><h3>Related</h3><ul>${nav}</ul></aside></main><footer><p>© Bench News</p></footer></body></html>`;
}
