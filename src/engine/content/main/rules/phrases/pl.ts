/** Polish: news sites' and blogs' prompts, labels and signposts (Onet, Wirtualna Polska, Gazeta, regional papers, WordPress in Polish). */
import type { LanguagePhrases } from './types.js';

export const pl: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`reklama`,
    String.raw`(artykuł|materiał) (sponsorowany|promocyjny)`,
    String.raw`materiał partnera`,
    // When the story changed ("Aktualizacja: 12.03.2024 14:35").
    String.raw`(ostatnia )?aktualizacja:? .{0,40}`,
    String.raw`zaktualizowano:? .{0,40}`,
    String.raw`czas (czytania|czytania artykułu):? \d+ min(\.|ut)?`,
    // Comment prompts and the controls under each comment.
    String.raw`(dodaj|napisz|zostaw) (komentarz|opinię).{0,20}`,
    String.raw`(brak|0) komentarzy( do tej pory)?\.?`,
    String.raw`(nie ma jeszcze|jeszcze nie ma) komentarzy\.?`,
    String.raw`bądź pierwsz[ya]m?.{0,60}`,
    String.raw`musisz być zalogowany.{0,60}`,
    String.raw`(zobacz|pokaż) komentarze`,
    String.raw`odpowiedz`,
    String.raw`zgłoś( naruszenie| komentarz)?`,
    // Share and rating prompts.
    String.raw`(udostępnij|podziel się)( (artykułem|tym artykułem))?( na .{0,20})?:?`,
    String.raw`czy (ten )?(artykuł|tekst) (był|jest) (pomocny|przydatny)\??.*`,
    String.raw`dziękujemy za (opinię|ocenę|głos)!?`,
    String.raw`oceń (ten )?artykuł`,
    String.raw`drukuj`,
    String.raw`kopiuj link`,
    // Newsletter and paywall prompts.
    String.raw`(zapisz się|zasubskrybuj) (do|na) (naszego )?newslettera?.*`,
    String.raw`(ten )?(artykuł|tekst|materiał) (jest )?(dostępny )?(tylko )?dla (subskrybentów|prenumeratorów).{0,60}`,
    String.raw`(masz już|posiadasz) (subskrypcję|prenumeratę|konto)\??.{0,40}`,
    String.raw`czytaj (więcej|dalej)`,
    String.raw`zobacz (więcej|wszystkie)`,
    // Signposts.
    String.raw`spis treści`,
    String.raw`(do góry|na górę)`,
    String.raw`(czytaj|zobacz) (także|też|również):?`,
    // The small print.
    String.raw`polityka (prywatności|cookies)`,
    String.raw`regulamin`,
    String.raw`.{0,150}\bwszelkie prawa zastrzeżone\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`(czytaj|zobacz) (także|też|również)`,
    String.raw`(podobne|powiązane|polecane) (artykuły|teksty|wpisy|tematy)`,
    String.raw`może (cię|ciebie|pana|panią|was) (też |także |również )?zainteresować`,
    String.raw`(najczęściej )?czytane`,
    String.raw`najpopularniejsze`,
    String.raw`więcej (z tego programu|z tej kategorii|na ten temat)`,
    String.raw`polecamy`,
  ],
  comments: [
    String.raw`(\d+ )?komentarze( \(\d+\))?`,
    String.raw`\d+ komentarzy?( \(\d+\))?`,
    String.raw`(dodaj|napisz|zostaw) komentarz`,
  ],
  stopWords: ['się', 'nie', 'że', 'jest', 'jak', 'po', 'od', 'przez', 'tym', 'ale', 'jego', 'być', 'oraz', 'tak', 'dla', 'w', 'są', 'czy', 'już', 'na'],
};
