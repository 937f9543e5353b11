% # one memory: its text (always escaped) and where it comes from; ``pick``: a checkbox to choose it
<li class="memory kind-{{item.kind}}" data-id="{{item.id}}">
  % if pick:
  <input type="checkbox" name="ids" value="{{item.id}}" id="pick-{{n}}"{{!' checked' if checked else ''}}>
  <label for="pick-{{n}}" class="visually-hidden">{{v['t']('pick', n=n + 1)}}</label>
  % end
  <p class="content">{{item.content}}</p>
  <p class="meta">
    <span class="tag">{{v['t'].kind(item.kind)}}</span>
    % if item.role:
    <span>{{v['t']('role.' + item.role) if item.role in ('user', 'assistant', 'tool') else item.role}}</span>
    % end
    <span><time datetime="{{v['iso'](item.created_at)}}">{{v['when'](item.created_at)}}</time></span>
    <span>{{v['t']('meta.persona')}}: {{item.persona_id or v['t']('persona.default')}}</span>
    <span>{{v['t']('meta.session')}}: {{item.session_id}}</span>
    <span>{{v['t']('meta.level')}}: {{v['t']('level.unknown') if item.auth_level is None else v['t']('level.value', n=item.auth_level)}}</span>
    % if item.sources:
    <span>{{v['t']('meta.sources', n=len(item.sources))}}</span>
    % end
    % if scores:
    <span class="score">{{v['t']('meta.score')}}: {{'%.3f' % item.score}}</span>
    <span class="score">{{v['t']('meta.rank')}}: {{'%.3f' % item.rank_score}}</span>
    % end
    <a href="{{v['link']('/memory', user=v['user'], id=item.id)}}">{{v['t']('details')}}<span class="visually-hidden"> ({{n + 1}})</span></a>
  </p>
</li>
