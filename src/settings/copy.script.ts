/**
 * The settings pages' only script, served as a same-origin file (the pages' policy allows no inline
 * script): it reveals each Copy button and copies the text of the element the button names. Without
 * it the secret is still shown, selectable, and nothing else on the pages needs JavaScript.
 */
export const COPY_SCRIPT = `'use strict';
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var id = button.getAttribute('data-copy');
  var target = document.getElementById(id);
  var status = document.querySelector('[data-copy-status="' + id + '"]');
  if (!target || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(target.textContent.trim()).then(
      function () { if (status) status.textContent = 'Copied to the clipboard.'; },
      function () { if (status) status.textContent = 'Copying failed: select the text and copy it.'; }
    );
  });
});
`;
