/** Italian: news sites' and blogs' prompts, labels and signposts (Corriere, Repubblica, regional papers, WordPress in Italian). */
import type { LanguagePhrases } from './types.js';

export const it: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`pubblicità`,
    String.raw`(contenuto )?sponsorizzato`,
    String.raw`contenuto (a cura del partner|promozionale)`,
    // When the story changed ("Aggiornato il 12 marzo 2024 alle 14:35").
    String.raw`(ultimo )?aggiornamento:? .{0,40}`,
    String.raw`aggiornato( il| alle)?:? .{0,40}`,
    String.raw`(tempo di )?lettura:? \d+ min(\.|uti)?`,
    // Comment prompts and the controls under each comment.
    String.raw`(lascia|scrivi|aggiungi|lasciare|scrivere) un commento.{0,20}`,
    String.raw`(nessun|0) commento( ancora)?\.?`,
    String.raw`(non ci sono|ancora nessun) commenti\.?`,
    String.raw`sii il primo a commentare.{0,40}`,
    String.raw`(devi essere|è necessario essere) (connesso|registrato|loggato|autenticato) per .{0,60}`,
    String.raw`rispondi`,
    String.raw`segnala( commento| abuso)?`,
    // Share and rating prompts.
    String.raw`condividi( (questo|l') articolo)?( su .{0,20})?:?`,
    String.raw`(questo|l') articolo (ti )?è stato utile\??.*`,
    String.raw`(ti è piaciuto|ti è stato utile) (questo|l') articolo\??.*`,
    String.raw`grazie per il (tuo )?(feedback|voto)!?`,
    String.raw`vota (questo|l') articolo`,
    String.raw`stampa`,
    String.raw`copia (il )?link`,
    // Newsletter and paywall prompts.
    String.raw`(iscriviti|registrati|abbonati) alla (nostra )?newsletter.*`,
    String.raw`(questo|l') articolo è riservato (agli abbonati|ai lettori abbonati|agli utenti registrati).{0,60}`,
    String.raw`sei già abbonato\??.{0,40}`,
    String.raw`continua a leggere`,
    String.raw`(leggi|scopri) (di più|tutto)`,
    // Signposts.
    String.raw`indice( dei contenuti)?`,
    String.raw`torna (su|in alto|all'inizio)`,
    String.raw`leggi anche:?`,
    // The small print.
    String.raw`note legali`,
    String.raw`informativa (sulla )?privacy`,
    String.raw`.{0,150}\btutti i diritti riservati\b.{0,60}`,
    String.raw`.{0,60}\b(p\. ?iva|partita iva)( e c\. ?f\.)?:? ?\d{11}.{0,60}`,
  ],
  elsewhere: [
    String.raw`leggi anche`,
    String.raw`(ti )?(potrebbe|potrebbero) (anche )?(interessarti|piacerti|interessare)`,
    String.raw`(articoli|notizie|contenuti|post) (correlat[ie]|simili|consigliat[ie])`,
    String.raw`(i )?più lett[ie]`,
    String.raw`altro da (questo programma|questa rubrica)`,
    String.raw`da non perdere`,
  ],
  comments: [
    String.raw`(\d+ )?commenti( \(\d+\))?`,
    String.raw`(\d+|una?) (commenti|commento|risposte|risposta|pensieri|pensiero) (su|a) .{1,120}`,
    String.raw`(lascia|scrivi) un commento`,
  ],
  stopWords: ['di', 'che', 'non', 'per', 'sono', 'della', 'gli', 'nel', 'alla', 'anche', 'più', 'questo', 'è', 'delle', 'dei', 'degli', 'nella', 'questa', 'ha', 'sul'],
};
