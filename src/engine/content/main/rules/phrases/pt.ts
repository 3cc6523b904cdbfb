/** Portuguese (Brazil and Portugal): news sites' and blogs' prompts, labels and signposts (G1, Folha, Público, WordPress in Portuguese). */
import type { LanguagePhrases } from './types.js';

export const pt: LanguagePhrases = {
  boilerplate: [
    // Advertisement labels.
    String.raw`publicidade`,
    String.raw`(conteúdo )?patrocinado`,
    String.raw`conteúdo de marca`,
    // When the story changed ("Atualizado em 12/03/2024 às 14h35").
    String.raw`(última )?(atualização|actualização):? .{0,40}`,
    String.raw`(atualizad|actualizad)[oa]( em| às| a)?:? .{0,40}`,
    String.raw`(tempo de )?leitura:? \d+ min(\.|utos?)?`,
    // Comment prompts and the controls under each comment.
    String.raw`(deixe|deixa|escreva|escreve|adicione|deixar) (um|o seu|seu|o teu|a sua|sua) comentário.{0,20}`,
    String.raw`(sem|nenhum|0) comentários?( ainda)?\.?`,
    String.raw`ainda não há comentários\.?`,
    String.raw`seja o primeiro a comentar.{0,40}`,
    String.raw`(você precisa|é necessário|tem de|precisa) (estar logado|fazer login|iniciar sessão) para .{0,60}`,
    String.raw`ver comentários`,
    String.raw`responder`,
    String.raw`denunciar( comentário)?`,
    // Share and rating prompts.
    String.raw`(compartilh|partilh)(e|ar)( (este|esta|o|a) (artigo|matéria|notícia|post))?( n[oa] .{0,20})?:?`,
    String.raw`(este|esse|o) (artigo|conteúdo|texto) (foi|lhe foi|te foi) útil\??.*`,
    String.raw`obrigad[oa] pel[oa] (seu |sua )?(feedback|avaliação|voto)!?`,
    String.raw`avalie (este|o) artigo`,
    String.raw`imprimir`,
    String.raw`copiar (o )?link`,
    // Newsletter and paywall prompts.
    String.raw`(assine|inscreva-se|cadastre-se|subscreva|receba) (a |na |em |à )?(nossa )?newsletter.*`,
    String.raw`(este|o) conteúdo é exclusivo para assinantes.{0,60}`,
    String.raw`já é assinante\??.{0,40}`,
    String.raw`continue lendo`,
    String.raw`continuar a ler`,
    String.raw`(leia|ler|veja|ver|saiba) mais`,
    // Signposts.
    String.raw`índice`,
    String.raw`voltar ao topo`,
    String.raw`(leia|veja) também:?`,
    // The small print.
    String.raw`política de privacidade`,
    String.raw`termos de uso`,
    String.raw`.{0,150}\btodos os direitos reservados\b.{0,60}`,
  ],
  elsewhere: [
    String.raw`(leia|veja) também`,
    String.raw`(você|voce) (também )?(pode|poderá) (gostar|se interessar)`,
    String.raw`(também )?(pode|poderá) (também )?(te |lhe )?interessar`,
    String.raw`(artigos|notícias|matérias|posts|conteúdos) (relacionad[oa]s|semelhantes|recomendad[oa]s)`,
    String.raw`(as |os )?mais lid[oa]s`,
    String.raw`mais (deste programa|desta seção|desta secção|sobre o assunto)`,
  ],
  comments: [
    String.raw`(\d+ )?comentários( \(\d+\))?`,
    String.raw`(\d+|uma?) (respostas?|comentários?|pensamentos?) (para|sobre|em) .{1,120}`,
    String.raw`(deixe|escreva) (um|o seu|seu) comentário`,
  ],
  stopWords: ['não', 'uma', 'com', 'os', 'em', 'ao', 'são', 'é', 'foi', 'pelo', 'pela', 'seu', 'sua', 'também', 'você', 'isso', 'mas', 'pelos', 'ele', 'às'],
};
