/// The console's style sheet and script, served from campaignd itself (`/assets/…`): nothing is loaded from another
/// site, so the console works in a closed network, and the content security policy allows scripts and styles from
/// the console alone.
enum ConsoleAssets {
    static let css = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f5f6f8; }
        header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; align-items: center; gap: 24px; }
        header h1 { font-size: 18px; margin: 0; }
        nav { display: flex; gap: 16px; align-items: center; flex: 1; }
        nav a { color: #9fc3ff; }
        nav .who { margin-left: auto; color: #c8ccd6; }
        main { padding: 16px 20px; }
        table { border-collapse: collapse; background: #fff; margin: 8px 0 16px; }
        th, td { border: 1px solid #d8dbe2; padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: #eceef2; }
        .error { background: #fde2e1; color: #8a1c17; border: 1px solid #e8a29e; padding: 8px 20px; margin: 0; }
        .notice { background: #e2f3e4; color: #1c5a27; border: 1px solid #9ed2a7; padding: 8px 20px; margin: 0; }
        .inline { display: inline; }
        .state-live { color: #17803a; font-weight: 600; } .state-paused { color: #9a6a00; } .state-expired, .state-deleted { color: #8a1c17; }
        .stale { color: #8a1c17; font-weight: 600; } .reached { color: #17803a; } .waiting { color: #9a6a00; }
        .actions a { display: inline-block; margin-right: 8px; padding: 4px 10px; border: 1px solid #5b6b8c; border-radius: 4px; background: #fff; }
        button { padding: 4px 12px; }
        button.danger { background: #b3261e; color: #fff; border: 1px solid #8a1c17; }
        .previews { display: flex; flex-wrap: wrap; gap: 24px; }
        .preview { background: #fff; border: 1px solid #d8dbe2; padding: 12px; margin: 0; }
        .preview h3 { margin: 0 0 6px; font-size: 14px; }
        .phones { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-end; margin-bottom: 8px; }
        .phone-box { display: flex; flex-direction: column; align-items: center; gap: 4px; font-size: 12px; color: #4a5060; }
        .bezel { background: #111; padding: 8px; border-radius: 18px; line-height: 0; }
        svg.phone { display: block; border-radius: 10px; }
        svg.phone .launch-screen { fill: #f2f2f2; }
        svg.phone .ad { fill: #000; }
        svg.phone .logo { fill: #fff; }
        svg.phone .logo-text { fill: #8a90a0; font-family: system-ui, sans-serif; pointer-events: none; }
        svg.phone .click-area { fill: transparent; cursor: pointer; }
        svg.phone .click-area.button { fill: #000; fill-opacity: 0.6; }
        svg.phone foreignObject video { width: 100%; height: 100%; object-fit: fill; display: block; }
        svg.phone .badge { fill: #000; fill-opacity: 0.6; }
        svg.phone .badge-text { fill: #fff; font-family: system-ui, sans-serif; pointer-events: none; }
        .jump-target { font-family: monospace; background: #fff7d6; padding: 2px 6px; }
        svg.chart .bar { fill: #3d6fd9; } svg.chart .axis { stroke: #8a90a0; } svg.chart text { font: 11px system-ui, sans-serif; fill: #4a5060; }
        svg.timeline .window { fill: #3d6fd9; } svg.timeline .window.state-paused { fill: #d9a53d; }
        svg.timeline .window.state-expired, svg.timeline .window.state-deleted { fill: #b8bcc6; }
        svg.timeline .window.forced { fill: #d93d6f; }
        svg.timeline .now { stroke: #b3261e; stroke-width: 2; }
        svg.timeline text { font: 12px system-ui, sans-serif; fill: #1d2330; }
        """

    static let javascript = """
        "use strict";
        // Live tables: a table with data-stream gets its rows from each Server-Sent Event of that address
        // ({"rows": "<tr>…", "status": "…"}; the rows were escaped by the server).
        document.querySelectorAll("table[data-stream]").forEach(function (table) {
          var source = new EventSource(table.getAttribute("data-stream"));
          source.onmessage = function (event) {
            var data = JSON.parse(event.data);
            table.querySelector("tbody").innerHTML = data.rows;
            var status = document.getElementById(table.id + "-status");
            if (status && data.status) { status.textContent = data.status; }
          };
        });
        // Phone previews: the countdown runs, the countdown turns into skip at skipAfter, a tap on the click area shows
        // the jump target. The texts follow the model's patterns ({n}: the seconds left). The session plays again a
        // second after it ends.
        document.querySelectorAll("svg.phone").forEach(function (phone) {
          var countdown = Number(phone.dataset.countdown);
          var skippable = phone.dataset.skippable === "true";
          var skipAfter = Number(phone.dataset.skipAfter || 0);
          var counter = phone.querySelector(".countdown-text");
          var counterGroup = phone.querySelector(".countdown");
          var skipText = phone.querySelector(".skip-text");
          var skip = phone.querySelector(".skip");
          var jump = phone.closest("figure").querySelector(".jump-target");
          var start = Date.now();
          function tick() {
            var elapsed = (Date.now() - start) / 1000;
            if (elapsed >= countdown + 1) { start = Date.now(); elapsed = 0; }
            var left = Math.max(0, Math.ceil(countdown - elapsed));
            var offered = skippable && elapsed >= skipAfter && left > 0;
            counter.textContent = phone.dataset.countdownFormat.replace("{n}", String(left));
            skipText.textContent = phone.dataset.skipFormat.replace("{n}", String(left));
            skip.setAttribute("visibility", offered ? "visible" : "hidden");
            counterGroup.setAttribute("visibility", offered ? "hidden" : "visible");
          }
          phone.querySelector("[data-frame=click]").addEventListener("click", function () { if (jump) { jump.hidden = false; } });
          tick();
          setInterval(tick, 100);
        });
        """
}
