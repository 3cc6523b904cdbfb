/** Spanish: news sites' and blogs' prompts, labels and signposts (El País, El Mundo, regional papers, WordPress in Spanish). */
import type { LanguagePhrases } from './types.js';

export const es: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`publicidad`,
    String.raw`(contenido )?patrocinado`,
    String.raw`contenido de marca`,
    // When the story changed ("Actualizado: 12/03/2024 14:35").
    String.raw`(última )?actualización:? .{0,40}`,
    String.raw`actualizado( el| a las)?:? .{0,40}`,
    String.raw`(tiempo de )?lectura:? \d+ min(\.|utos?)?`,
    // Comment prompts and the controls under each comment.
    String.raw`(deja|dejar|escribe|escribir|añade|añadir|publica|publicar) (un|tu) comentario.{0,20}`,
    String.raw`(no hay|sin|0) comentarios( todavía| aún)?\.?`,
    String.raw`sé el primero en comentar.{0,40}`,
    String.raw`(debes|tienes que) (iniciar sesión|estar registrado|registrarte) para .{0,60}`,
    String.raw`ver comentarios`,
    String.raw`responder`,
    String.raw`denunciar( comentario)?`,
    // Share and rating prompts.
    String.raw`compart(ir|e)( (este|el) (artículo|post|contenido))?( en .{0,20})?:?`,
    String.raw`¿?(te ha resultado|te ha sido|ha sido|fue|te resultó|le ha resultado) (útil|de ayuda) (este|esta|el|la) (artículo|noticia|información|página)\??.*`,
    String.raw`¿?(te ha|le ha) (sido útil|gustado) (este|esta|el|la) (artículo|noticia)\??.*`,
    String.raw`gracias por (tu|su) (opinión|valoración|voto)\s?!?`,
    String.raw`valora (este|el) artículo`,
    String.raw`imprimir`,
    String.raw`copiar (el )?enlace`,
    // Newsletter and paywall prompts.
    String.raw`(suscríbete|suscribete|apúntate|regístrate) (a|en) (nuestra|la|nuestro|el) (newsletter|boletín).*`,
    String.raw`(este|el) (artículo|contenido) es (exclusivo|solo) para (suscriptores|socios|abonados).{0,60}`,
    String.raw`¿?ya eres (suscriptor|socio|abonado)\??.{0,40}`,
    String.raw`(seguir|sigue) leyendo`,
    String.raw`(leer|ver) (más|todo|todos)`,
    // Signposts.
    String.raw`índice( de contenidos)?`,
    String.raw`volver (arriba|al inicio)`,
    String.raw`(lee|lea|leer) también:?`,
    // The small print.
    String.raw`aviso legal`,
    String.raw`política de (privacidad|cookies)`,
    String.raw`.{0,150}\btodos los derechos reservados\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`(también )?(te|le) (puede|podría|pueden|podrían) (interesar|gustar)`,
    String.raw`(quizás|quizá|tal vez) (te|le) (interese|guste)`,
    String.raw`(artículos|noticias|contenidos|publicaciones|entradas|temas) (relacionad[oa]s|similares|recomendad[oa]s)`,
    String.raw`(lee|lea|leer) también`,
    String.raw`lo más (leído|visto)`,
    String.raw`(las )?más leídas`,
    String.raw`no te pierdas`,
    String.raw`más (de este programa|de esta sección|sobre este tema)`,
  ],
  comments: [
    String.raw`(\d+ )?comentarios( \(\d+\))?`,
    String.raw`(\d+|una?) (respuestas?|comentarios?|pensamientos?) (a|en|sobre) .{1,120}`,
    String.raw`(deja|escribe|añade) (un|tu) comentario`,
  ],
  stopWords: ['el', 'los', 'las', 'y', 'pero', 'sus', 'más', 'muy', 'fue', 'han', 'hay', 'desde', 'cuando', 'también', 'ya', 'porque', 'había', 'años'],
};
