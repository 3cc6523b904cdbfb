/**
 * The data of the credits pass (passes/credits.ts): what makes a short line a credit (a photo's
 * agency, a copyright line) rather than text, each with the reason measured on the development sets
 * (fundus' development half, WCXB dev, the 181 articles; bench:quality, engine http).
 */

/**
 * A line that opens with a copyright sign is a credit or a rights notice wherever it stands in the
 * body ("© Action press/Bernd März", "© Licencja na publikację ... Źródło: rp.pl"); the sign says it
 * in every language.
 */
export const COPYRIGHT_OPENING = /^(?:©|℗|Ⓒ|\(c\)\s)/i;

/**
 * Next to a picture: a short line of names joined by slashes, with no sentence in it, is a photo's
 * credit ("REUTERS/Nadja Wohlleben", "STR/AFP via Getty Images", "Tagesspiegel/Rita Böttcher"). Names hold no
 * digits: "84 reviews / 5 average" under a recipe's picture, or a date "12/05/2024", is no credit (the corpus's
 * archive-recipes page lost its ratings to the first version of this rule), and a credit's slash is not
 * spaced nor in parentheses ("HSA / FSA eligible", "Blaze (he/him)": WCXB dev 4351 and the thread 0573).
 */
export const SLASHED_NAMES = /^[^\s/.!?\d()][^/.!?\d()]{0,60}(?:\/[^\s/.!?\d()][^/.!?\d()]{0,60}){1,4}$/u;

/**
 * Next to a picture: a label that says what follows is a credit, where the shape alone cannot tell it
 * from a caption ("Foto: dpa", "Photo : AFP", "Zdjęcie: PAP"). One word per language, before a colon.
 */
export const CREDIT_LABEL = /^(?:foto(?:s|grafie|grafia)?|fotó|photos?|photograph|picture|bild(?:er)?|image|imagen|immagine|zdjęcie|credits?|crédits?|crédito|credito|källa|kuva|fuente|quelle|source|illustration|grafik)\s?:\s*\S/iu;

/** Longest line a credit is: a caption's sentence runs longer. */
export const CREDIT_MAX_CHARS = 120;

/** Most words a credit of slashed names holds. */
export const CREDIT_MAX_WORDS = 10;
