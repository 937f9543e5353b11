% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('context.heading')}}</h1>
<p>{{t('context.explain')}}</p>
<form method="post" action="/context" class="grid" id="context">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <label for="c-question">{{t('context.question')}}</label>
  <input id="c-question" name="question" required maxlength="32768" value="{{question}}" autocomplete="off">
  <label for="c-persona">{{t('context.persona')}}</label>
  <select id="c-persona" name="persona">
    <option value="">{{t('persona.default')}}</option>
    % for p in personas:
    % if p:
    <option value="{{p}}"{{!' selected' if persona == p else ''}}>{{p}}</option>
    % end
    % end
  </select>
  <label for="c-session">{{t('context.session')}}</label>
  <select id="c-session" name="session">
    <option value="">default</option>
    % for s in sessions:
    % if s != 'default':
    <option value="{{s}}"{{!' selected' if session_id == s else ''}}>{{s}}</option>
    % end
    % end
  </select>
  <span></span><span><button type="submit" id="context-button">{{t('context.button')}}</button></span>
</form>
% if messages is not None:
<section aria-labelledby="told-heading" id="told">
<h2 id="told-heading">{{t('context.told', n=len(messages))}}</h2>
<ol class="messages">
% for n, message in enumerate(messages):
  <li class="message role-{{message['role']}}">
    <p class="role">{{t('role.' + message['role']) if message['role'] in ('system', 'developer', 'user', 'assistant', 'tool') else message['role']}}</p>
    <pre class="said">{{message.get('content') or ''}}</pre>
    % holds = carried(message, memories)
    % if holds:
    <p class="carries">{{t('context.carries', n=len(holds))}}</p>
    <ul class="carried">
    % for item in holds:
      <li><a href="{{v['link']('/memory', user=user, id=item.id)}}">{{item.content}}</a> <span class="tag">{{t.kind(item.kind)}}</span></li>
    % end
    </ul>
    % end
  </li>
% end
</ol>
% if not memories:
<p>{{t('context.no_memories')}}</p>
% end
<p class="hint">{{t('context.levels', n=levels['context'])}}</p>
</section>
% end
