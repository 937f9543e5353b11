% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('transfer.heading')}}</h1>
<section class="box" aria-labelledby="export-heading">
<h2 id="export-heading">{{t('export.heading')}}</h2>
<p>{{t('export.explain')}}</p>
<p><a class="button" id="export" href="{{v['link']('/export', user=user)}}" download>{{t('export.button')}}</a></p>
</section>
<section class="box" aria-labelledby="import-heading">
<h2 id="import-heading">{{t('import.heading')}}</h2>
<form method="post" action="/import" enctype="multipart/form-data" class="stack" id="import">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <label for="import-file">{{t('import.file')}}</label>
  <input type="file" id="import-file" name="file" accept=".jsonl,.json,application/x-ndjson,application/json" required>
  <p class="hint">{{t('import.explain', mb=max_mb)}}</p>
  <button type="submit" id="import-button">{{t('import.button')}}</button>
</form>
</section>
