/** Dutch: news sites' and blogs' prompts, labels and signposts (NOS, NRC, de Volkskrant, regional papers, WordPress in Dutch). */
import type { LanguagePhrases } from './types.js';

export const nl: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`advertentie`,
    String.raw`gesponsord( bericht)?`,
    String.raw`(in samenwerking met|partnerbijdrage).{0,40}`,
    // When the story changed ("Bijgewerkt op 12 maart 2024, 14:35").
    String.raw`(laatst )?(bijgewerkt|geüpdatet|aangepast)( op)?:? .{0,40}`,
    String.raw`leestijd:? \d+ min(\.|uten?)?`,
    String.raw`\d+ min(\.|uten?)? leestijd`,
    // Comment prompts and the controls under each comment.
    String.raw`(schrijf|plaats|geef|laat) (een|je|uw) (reactie|commentaar)( achter)?.{0,20}`,
    String.raw`(er zijn )?(nog )?geen reacties( tot nu toe)?\.?`,
    String.raw`wees de eerste (die reageert|om te reageren).{0,40}`,
    String.raw`(je moet|u moet) (ingelogd|aangemeld) zijn om .{0,60}`,
    String.raw`bekijk (de )?reacties`,
    String.raw`(reageer|reageren|beantwoorden)`,
    String.raw`rapporteer`,
    // Share and rating prompts.
    String.raw`(deel|delen)( dit)?( artikel| bericht)?( via .{0,20})?:?`,
    String.raw`(was|is) (dit|dit artikel|deze pagina) (nuttig|handig)\??.*`,
    String.raw`bedankt voor (je|uw) feedback!?`,
    String.raw`beoordeel dit artikel`,
    String.raw`printen`,
    String.raw`kopieer (de )?link`,
    // Newsletter and paywall prompts.
    String.raw`(meld je aan|schrijf je in|abonneer( je)?) (voor|op) (onze|de) nieuwsbrief.*`,
    String.raw`(dit|het) (artikel|stuk) is (alleen |exclusief )?(voor|beschikbaar voor) (abonnees|leden).{0,60}`,
    String.raw`(ben je|bent u) al abonnee\??.{0,40}`,
    String.raw`lees (meer|verder)`,
    String.raw`meer (lezen|info)`,
    // Signposts.
    String.raw`inhoudsopgave`,
    String.raw`terug naar (boven|top)`,
    String.raw`lees ook:?`,
    // The small print.
    String.raw`privacyverklaring`,
    String.raw`(privacy|cookie)beleid`,
    String.raw`algemene voorwaarden`,
    String.raw`colofon`,
    String.raw`.{0,150}\balle rechten voorbehouden\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`lees ook`,
    String.raw`(dit )?(vind je|vindt u) (misschien |wellicht )?ook (leuk|interessant)`,
    String.raw`(gerelateerde|vergelijkbare|aanbevolen) (artikelen|berichten|verhalen|video's)`,
    String.raw`meer (over dit onderwerp|van dit programma|uit deze rubriek)`,
    String.raw`meest gelezen`,
    String.raw`bekijk ook`,
  ],
  comments: [
    String.raw`(\d+ )?reacties( \(\d+\))?`,
    String.raw`(\d+|één|een) (reacties?|gedachten?) (op|over) .{1,120}`,
    String.raw`(plaats|schrijf|geef) (een|je|uw) reactie`,
  ],
  stopWords: ['het', 'een', 'van', 'niet', 'dat', 'op', 'zijn', 'met', 'voor', 'ook', 'maar', 'wordt', 'bij', 'naar', 'hij', 'nog', 'aan', 'dit', 'worden', 'werd'],
};
