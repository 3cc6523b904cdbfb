/** French: news sites' and blogs' prompts, labels and signposts (Le Monde, Le Figaro, regional papers, WordPress in French). */
import type { LanguagePhrases } from './types.js';

export const fr: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`publicité`,
    String.raw`(contenu )?sponsorisé`,
    String.raw`contenu (partenaire|de marque)`,
    // When the story changed ("Mis à jour le 12 mars 2024 à 14h35").
    String.raw`(mis|mise) à jour( le)?:? .{0,40}`,
    String.raw`(temps de )?lecture:? \d+ min(\.|utes?)?`,
    // Comment prompts and the controls under each comment.
    String.raw`(laisser|écrire|ajouter|rédiger|publier|laissez|écrivez) un commentaire.{0,20}`,
    String.raw`(aucun|pas de|0) commentaires?( pour le moment| pour l'instant)?\.?`,
    String.raw`(soyez|sois) le premier à (commenter|réagir).{0,40}`,
    String.raw`vous devez être connecté pour .{0,60}`,
    String.raw`voir les commentaires`,
    String.raw`répondre`,
    String.raw`signaler( un abus| ce commentaire)?`,
    // Share and rating prompts.
    String.raw`partager( (cet|l') article)?( sur .{0,20})?:?`,
    String.raw`partagez( (cet|l') article)?:?`,
    String.raw`(cet|l') article vous a-t-il été utile ?\??.*`,
    String.raw`merci pour votre (avis|retour|vote)\s?!?`,
    String.raw`noter cet article`,
    String.raw`imprimer( l'article)?`,
    String.raw`copier le lien`,
    // Newsletter and paywall prompts.
    String.raw`(inscrivez-vous|abonnez-vous|s'inscrire|s'abonner) à (notre|la) newsletter.*`,
    String.raw`(recevez|recevoir) (notre|la) newsletter.*`,
    String.raw`il vous reste \d+ ?% de cet article à lire.{0,60}`,
    String.raw`la suite est réservée aux abonnés.{0,60}`,
    String.raw`(cet|l') article est réservé aux abonnés.{0,60}`,
    String.raw`déjà abonné ?\??.{0,40}`,
    String.raw`lire la suite`,
    String.raw`en savoir plus`,
    String.raw`voir (plus|tout|tous)`,
    // Signposts.
    String.raw`sommaire`,
    String.raw`retour en haut( de (la )?page)?`,
    String.raw`(à |a )?lire aussi ?:?`,
    String.raw`lire également ?:?`,
    // The small print.
    String.raw`mentions légales`,
    String.raw`politique de confidentialité`,
    String.raw`gestion des cookies`,
    String.raw`.{0,150}\btous droits réservés\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`(à |a )?lire (aussi|également)`,
    String.raw`sur le même (sujet|thème)`,
    String.raw`(articles?|contenus?) (similaires|liés|connexes|recommandés|associés)`,
    String.raw`vous (pourriez|aimerez|pouvez) aussi (aimer|être intéressé)`,
    String.raw`(ces articles|ceci) (peuvent|peut) (aussi )?vous intéresser`,
    String.raw`(nos |les )?(articles )?les plus lus`,
    String.raw`dans la même (rubrique|catégorie)`,
    String.raw`(découvrez|à découvrir) (aussi|également)`,
    String.raw`voir aussi`,
    String.raw`plus de (cette émission|cette rubrique)`,
  ],
  comments: [
    String.raw`(\d+ )?(commentaires|réactions)( \(\d+\))?`,
    String.raw`(\d+|une?) (réflexions?|commentaires?|réponses?) (sur|à|à propos de) .{1,120}`,
    String.raw`(laisser|écrire|ajouter) un commentaire`,
    String.raw`(réagissez|vos réactions).{0,40}`,
  ],
  stopWords: ['les', 'est', 'une', 'du', 'pour', 'pas', 'dans', 'qui', 'sur', 'des', 'avec', 'ce', 'au', 'sont', 'leur', 'et', 'aux', 'cette', 'nous', 'été'],
};
