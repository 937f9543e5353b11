% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('health.heading')}}</h1>
<section id="health" data-live aria-labelledby="counts-heading">
<h2 id="counts-heading">{{t('health.counts', user=user)}}</h2>
<ul class="counts">
% for kind in kinds:
  <li>{{t.kind(kind)}}: <span data-count="{{kind}}">{{stats['counts'].get(kind, 0)}}</span></li>
% end
</ul>
<dl class="facts">
  <dt>{{t('health.remembering')}}</dt><dd>{{t('status.paused_short') if stats['paused'] else t('status.on_short')}}</dd>
  <dt>{{t('health.semantic')}}</dt><dd id="semantic">{{t('health.yes') if stats['semantic_recall'] is True else t('health.no') if stats['semantic_recall'] is False else stats['semantic_recall']}}{{' (' + stats['semantic_error'] + ')' if stats['semantic_error'] else ''}}</dd>
  <dt>{{t('health.model')}}</dt><dd id="model">{{stats['embedding_model'] or t('health.none')}}</dd>
  <dt>{{t('health.reranker')}}</dt><dd>{{stats['reranker'] or t('health.none')}}</dd>
  <dt>{{t('health.backend')}}</dt><dd>{{stats['memory_module']}}</dd>
  <dt>{{t('health.vectors')}}</dt><dd>{{stats['vectors']}}</dd>
  <dt>{{t('health.pending')}}</dt><dd id="pending">{{stats['pending_jobs']}}{{' ' + t('health.llm_pending', n=stats['llm_jobs']) if stats['llm_jobs'] else ''}}</dd>
  % if stats['reembedding']:
  <dt>{{t('health.reembedding')}}</dt><dd>{{stats['reembedding']['model']}}: {{stats['reembedding']['pending']}}</dd>
  % end
  <dt>{{t('health.disk')}}</dt><dd id="disk">{{v['size'](disk)}}</dd>
  <dt>{{t('health.storage_error')}}</dt><dd>{{stats['storage_error']['message'] if stats['storage_error'] else t('health.none')}}</dd>
  <dt>{{t('health.background_error')}}</dt><dd>{{stats['last_background_error'] or t('health.none')}}</dd>
</dl>
</section>
