/** German: news sites' and blogs' prompts, labels and signposts (Spiegel, Zeit, FAZ, regional papers, WordPress in German). */
import type { LanguagePhrases } from './types.js';

export const de: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels, over an ad or a paid story.
    String.raw`anzeige( \(.{0,40}\))?`,
    String.raw`werbung`,
    String.raw`gesponsert`,
    String.raw`(bezahlter|gesponserter) (partner)?inhalt.{0,30}`,
    String.raw`partnerinhalt.{0,30}`,
    // When the story changed ("Aktualisiert am 12.03.2024, 14:35 Uhr", "Stand: 12.03.2024").
    String.raw`(zuletzt )?aktualisiert( am)?:? .{0,40}`,
    String.raw`stand:? \d.{0,30}`,
    String.raw`lesezeit:? (ca\. )?\d+ min(\.|uten?)?`,
    String.raw`\d+ min(\.|uten?)? lesezeit`,
    // Comment prompts and the controls under each comment.
    String.raw`(jetzt )?(einen |ihren |deinen )?kommentar (schreiben|verfassen|abgeben|hinterlassen).{0,20}`,
    String.raw`(schreiben sie|schreib) (einen|ihren|deinen) kommentar.{0,20}`,
    String.raw`(es gibt )?(noch )?keine kommentare( vorhanden)?\.?`,
    String.raw`(seien sie|sei) (der|die) erste, (der|die) (kommentiert|einen kommentar schreibt).{0,20}`,
    String.raw`(sie müssen|du musst) (angemeldet|eingeloggt) sein, um .{0,60}`,
    String.raw`(\d+ )?kommentare?( anzeigen| lesen| ansehen| laden)`,
    String.raw`zu den kommentaren`,
    String.raw`antworten`,
    String.raw`melden`,
    // Share and rating prompts.
    String.raw`((diesen )?(artikel|beitrag)|seite) teilen:?`,
    String.raw`teilen( (auf|per|via) .{0,20})?:?`,
    String.raw`(war )?(dieser|der) (artikel|beitrag) (hilfreich|nützlich)\??.*`,
    String.raw`(wie )?(hat|gefällt) (ihnen|dir) (dieser|der) (artikel|beitrag)( gefallen)?\??.*`,
    String.raw`danke für (ihr|dein) feedback!?`,
    String.raw`(artikel|beitrag) bewerten`,
    String.raw`(artikel )?drucken`,
    String.raw`link kopieren`,
    // Newsletter and paywall prompts.
    String.raw`(jetzt )?(für )?(den |unseren )?newsletter (an(zu)?melden|abonnieren|bestellen).*`,
    String.raw`(melden sie sich|melde dich) (jetzt )?(für|zu) (unseren|den) newsletter an.*`,
    String.raw`(dieser|der) (artikel|beitrag|inhalt) ist (nur |exklusiv )?(für )?(abonnent|\S+\+|\S+ ?plus).{0,80}`,
    String.raw`(sie sind|du bist) bereits (abonnent|abonnentin|registriert)\??.{0,40}`,
    String.raw`bereits abonnent\??.{0,40}`,
    String.raw`(jetzt )?(registrieren|anmelden|abonnieren) und weiterlesen.{0,40}`,
    String.raw`(jetzt )?weiterlesen( mit .{0,40})?`,
    String.raw`mehr (lesen|erfahren|anzeigen)`,
    String.raw`bleiben sie (informiert|auf dem laufenden).{0,60}`,
    String.raw`alle (artikel|beiträge) anzeigen`,
    // Signposts.
    String.raw`inhaltsverzeichnis`,
    String.raw`(zurück )?nach oben`,
    String.raw`zurück zur übersicht`,
    String.raw`mehr zum thema:?`,
    String.raw`lesen sie auch:?`,
    String.raw`(das )?könnte (sie|dich) auch interessieren:?`,
    String.raw`auch interessant:?`,
    // The small print.
    // The imprint, alone or leading a line of legal links ("Impressum · Datenschutz · Kontakt").
    String.raw`impressum( ?[:|·•/–-] ?.{0,100})?`,
    String.raw`datenschutz(erklärung|hinweise)?`,
    String.raw`cookie-einstellungen`,
    String.raw`.{0,150}\balle rechte vorbehalten\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`(das )?könnte (sie|dich) (auch )?interessieren`,
    String.raw`(auch|ebenfalls) interessant`,
    String.raw`lesen sie (auch|mehr)`,
    String.raw`mehr zum thema`,
    String.raw`(weitere|verwandte|ähnliche|passende) (artikel|beiträge|themen|nachrichten|meldungen|produkte|videos)`,
    String.raw`mehr (aus|von) (dieser|der|unserer) (sendung|rubrik|serie|kategorie|redaktion)`,
    String.raw`meistgelesen(e)?( artikel)?`,
    String.raw`meist gelesen`,
    String.raw`(unsere )?empfehlungen( der redaktion| für sie)?`,
    String.raw`beliebte (artikel|beiträge)`,
  ],
  comments: [
    String.raw`(\d+ )?(leser)?kommentare( \(\d+\))?`,
    String.raw`(\d+|ein) (gedanken?|antworten?|kommentare?) zu .{1,120}`,
    String.raw`(einen |ihren |deinen )?kommentar (schreiben|verfassen|hinterlassen)`,
    String.raw`(schreiben sie|schreib) (einen|ihren|deinen) kommentar.{0,20}`,
    String.raw`diskutieren sie mit.{0,40}`,
  ],
  stopWords: ['der', 'die', 'und', 'ist', 'nicht', 'mit', 'sich', 'auch', 'ein', 'eine', 'dem', 'den', 'über', 'auf', 'für', 'wird', 'von', 'zu', 'im', 'wurde'],
};
