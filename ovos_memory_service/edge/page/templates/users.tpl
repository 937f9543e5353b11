% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('users.heading')}}</h1>
<p>{{t('users.explain')}}</p>
% if users:
<table class="users">
  <caption class="visually-hidden">{{t('users.heading')}}</caption>
  <thead><tr><th scope="col">{{t('users.user')}}</th><th scope="col">{{t('users.total')}}</th><th scope="col">{{t('users.newest')}}</th><th scope="col">{{t('users.remembering')}}</th></tr></thead>
  <tbody>
  % for u in users:
    <tr><th scope="row"><a href="{{v['link']('/memories', user=u['user_id'])}}">{{u['user_id']}}</a></th><td>{{u['total']}}</td><td>{{u['newest'][:16].replace('T', ' ') if u['newest'] else ''}}</td><td>{{t('status.paused_short') if u['user_id'] in paused else t('status.on_short')}}</td></tr>
  % end
  </tbody>
</table>
% else:
<p>{{t('users.none')}}</p>
% end
<form method="get" action="/memories" class="stack">
  <label for="other-user">{{t('users.open_label')}}</label>
  <input id="other-user" name="user" required maxlength="100" autocomplete="off">
  <button type="submit">{{t('users.open')}}</button>
</form>
