// For pages that embed specdec in an <iframe>: resize each specdec frame to the height it
// reports. Include once, anywhere on the host page:
//   <script src="https://YOUR-SPECDEC-HOST/static/js/embed-host.js" async></script>
(function () {
  if (window.__specdecEmbedHost) return;
  window.__specdecEmbedHost = true;
  window.addEventListener("message", function (e) {
    var d = e.data;
    if (!d || d.type !== "specdec:height" || typeof d.height !== "number") return;
    if (!(d.height > 0 && d.height < 100000)) return;
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      // Match by window, not by URL: two frames may show the same page.
      if (frames[i].contentWindow === e.source) {
        frames[i].style.height = Math.ceil(d.height) + "px";
        frames[i].setAttribute("data-specdec-height", String(Math.ceil(d.height)));
      }
    }
  });
})();
