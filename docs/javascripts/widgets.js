/*
 * posenc interactive figures: plain JavaScript, no framework, nothing fetched.
 *
 * Every element with a data-posenc-widget attribute becomes a live widget:
 *
 *   "dog-bites-man"  Proposition 4: the toy sentence in both word orders, with
 *                    and without the sinusoidal code: a guess first, then a
 *                    walk of six steps through the computation;
 *   "heatmap"        Proposition 5: the code as a heatmap, one position's code
 *                    and three of its rows drawn as waves;
 *   "clock-bank"     Proposition 8: one clock per chosen pair, and the rotation
 *                    block of M_k that moves PE(pos) to PE(pos + k);
 *   "alibi"          Proposition 16: ALiBi's bias row of every head for a chosen
 *                    query, and the weights that bias alone gives the keys;
 *   "rope-ladder"    Proposition 28: a rotary head's wavelengths before and after a
 *                    chosen scheme stretches it by s, with its bands shaded and
 *                    the pairs that turn within L0 and within s L0 counted.
 *
 * The HTML of a widget already holds a static text version, for readers without
 * JavaScript. The script builds the controls next to it and adds the class
 * posenc-widget--live to the root, which hides the static version. If building
 * fails, the error is reported on the console and the static version stays.
 *
 * Each widget writes its current numbers, unrounded, as JSON into the root's
 * data-state attribute on every change, so that tests can compare them with the
 * posenc library. The page only reads that attribute; nothing writes it back.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------------
  // Numbers

  var BASE = 10000;
  var MINUS = "\u2212";

  /** Angular speeds w_i = base^(-2i/d) of the pairs i = 0 .. d/2 - 1. */
  function frequencies(width, base) {
    var speeds = [];
    for (var i = 0; i < width / 2; i++) speeds.push(Math.pow(base, (-2 * i) / width));
    return speeds;
  }

  /** The code of one position: [sin(pos w_0), cos(pos w_0), sin(pos w_1), ...]. */
  function codeAt(pos, speeds) {
    var row = [];
    for (var i = 0; i < speeds.length; i++) {
      row.push(Math.sin(pos * speeds[i]), Math.cos(pos * speeds[i]));
    }
    return row;
  }

  /**
   * A sum that does not depend on the order of its terms, even in the last bit:
   * the terms are added smallest first. Attention sums over the words of a
   * sentence; with this, "dog bites man" and "man bites dog" give bit-identical
   * outputs when no position code is added, as the mathematics says they must.
   */
  function canonicalSum(terms) {
    var sorted = terms.slice().sort(function (a, b) { return a - b; });
    var total = 0;
    for (var j = 0; j < sorted.length; j++) total += sorted[j];
    return total;
  }

  /**
   * One head of self-attention with Wq = Wk = Wv = I: softmax(X X^T / sqrt(d)) X.
   * Returns the scores X X^T / sqrt(d), the shares (each row a softmax, adding up
   * to 1) and the outputs, one row per word in sentence order.
   */
  function selfAttention(rows) {
    var n = rows.length;
    var d = rows[0].length;
    var scale = Math.sqrt(d);
    var result = { scores: [], shares: [], outputs: [] };
    for (var i = 0; i < n; i++) {
      var scores = [];
      for (var j = 0; j < n; j++) {
        var dot = 0;
        for (var c = 0; c < d; c++) dot += rows[i][c] * rows[j][c];
        scores.push(dot / scale);
      }
      var top = Math.max.apply(null, scores);
      var e = scores.map(function (s) { return Math.exp(s - top); });
      var total = canonicalSum(e);
      var weights = e.map(function (x) { return x / total; });
      var row = [];
      for (var col = 0; col < d; col++) {
        var terms = [];
        for (var k = 0; k < n; k++) terms.push(weights[k] * rows[k][col]);
        row.push(canonicalSum(terms));
      }
      result.scores.push(scores);
      result.shares.push(weights);
      result.outputs.push(row);
    }
    return result;
  }

  function distance(a, b) {
    var sum = 0;
    for (var c = 0; c < a.length; c++) sum += (a[c] - b[c]) * (a[c] - b[c]);
    return Math.sqrt(sum);
  }

  // ------------------------------------------------------------------------
  // Text

  /** Six (or `digits`) significant digits, no trailing zeros, a real minus sign. */
  function sig(x, digits) {
    var text = String(Number(x.toPrecision(digits || 6)));
    return text.replace("-", MINUS);
  }

  /** A fixed number of decimals, never "-0.000". */
  function fixed(x, decimals) {
    var text = (x + 0).toFixed(decimals);
    if (/^-0\.?0*$/.test(text)) text = text.slice(1);
    return text.replace("-", MINUS);
  }

  // ------------------------------------------------------------------------
  // DOM helpers

  var SVG_NS = "http://www.w3.org/2000/svg";
  var counter = 0;

  function uid(prefix) {
    counter += 1;
    return "posenc-" + prefix + "-" + counter;
  }

  /** An element with attributes ("class", "text" are special) and children. */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    (children || []).forEach(function (child) { if (child) node.append(child); });
    return node;
  }

  function svgEl(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    return node;
  }

  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "class") node.setAttribute("class", value);
      else if (name === "text") node.textContent = value;
      else if (name === "html") node.innerHTML = value; // fixed markup from this file only
      else node.setAttribute(name, value === true ? "" : String(value));
    });
  }

  /** An integer data attribute, or `fallback` when absent or not an integer. */
  function intAttr(root, name, fallback) {
    var value = Number(root.getAttribute(name));
    return root.hasAttribute(name) && Number.isInteger(value) ? value : fallback;
  }

  function clamp(x, lo, hi) {
    return Math.min(hi, Math.max(lo, x));
  }

  /** The widget's description paragraph: it names the controls' purpose. */
  function describedBy(root) {
    var id = root.getAttribute("aria-describedby");
    return id ? id.split(/\s+/)[0] : null;
  }

  /**
   * A polite live region that says `text` once the reader has stopped changing
   * things for `delay` ms; repeated identical messages are not re-announced.
   */
  function makeAnnouncer(delay) {
    var region = el("p", {
      class: "posenc-widget__announce posenc-sr-only",
      "aria-live": "polite",
      "aria-atomic": "true",
    });
    var timer = 0;
    var last = "";
    function say(text) {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        if (text !== last) {
          region.textContent = text;
          last = text;
        }
      }, delay);
    }
    return { region: region, say: say };
  }

  /** A labelled <input type=range> with its value shown in an <output>. */
  function rangeControl(opts) {
    var id = uid(opts.name);
    var input = el("input", {
      type: "range",
      id: id,
      min: opts.min,
      max: opts.max,
      step: opts.step || 1,
      value: opts.value,
      "aria-describedby": opts.describedBy,
    });
    var output = el("output", { for: id, class: "posenc-control__value", text: String(opts.value) });
    var label = el("label", { for: id, class: "posenc-control__label", html: opts.label });
    var wrap = el("div", { class: "posenc-control" }, [label, input, output]);
    return { wrap: wrap, input: input, output: output };
  }

  /**
   * A range slider and a number box for the same integer, kept in step.
   * `onChange(value)` runs whenever either one moves to a valid value.
   */
  function pairedControl(opts, onChange) {
    var control = rangeControl(opts);
    var number = el("input", {
      type: "number",
      class: "posenc-control__number",
      min: opts.min,
      max: opts.max,
      step: 1,
      value: opts.value,
      inputmode: "numeric",
      "aria-label": opts.numberLabel,
    });
    control.output.replaceWith(number);
    control.input.addEventListener("input", function () {
      number.value = control.input.value;
      onChange(Number(control.input.value));
    });
    number.addEventListener("input", function () {
      var value = Number(number.value);
      if (number.value !== "" && Number.isInteger(value) && value >= opts.min && value <= opts.max) {
        control.input.value = String(value);
        onChange(value);
      }
    });
    number.addEventListener("change", function () {
      var value = Number(number.value);
      value = Number.isFinite(value) ? clamp(Math.round(value), opts.min, opts.max) : Number(control.input.value);
      number.value = String(value);
      control.input.value = String(value);
      onChange(value);
    });
    return { wrap: control.wrap, input: control.input, number: number };
  }

  // ------------------------------------------------------------------------
  // Canvas helpers

  /** Size a canvas's pixels to its CSS box times devicePixelRatio; return a 2D context in CSS px. */
  function fitCanvas(canvas, cssHeight) {
    var ratio = window.devicePixelRatio || 1;
    var cssWidth = Math.max(1, canvas.clientWidth || canvas.parentNode.clientWidth || 300);
    canvas.style.height = cssHeight + "px";
    var w = Math.max(1, Math.round(cssWidth * ratio));
    var h = Math.max(1, Math.round(cssHeight * ratio));
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    var ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, cssWidth, cssHeight);
    return { ctx: ctx, width: cssWidth, height: cssHeight };
  }

  /** The colours a widget draws with, read from its CSS custom properties (theme-aware). */
  function palette(root) {
    var style = window.getComputedStyle(root);
    function read(name, fallback) {
      return style.getPropertyValue(name).trim() || fallback;
    }
    return {
      ink: read("--posenc-w-ink", "#222"),
      muted: read("--posenc-w-muted", "#666"),
      paper: read("--posenc-w-paper", "#fff"),
      accent: read("--posenc-w-accent", "#3949ab"),
      lines: [read("--posenc-w-c1", "#0072B2"), read("--posenc-w-c2", "#D55E00"), read("--posenc-w-c3", "#009E73")],
      font: style.fontFamily || "sans-serif",
    };
  }

  // ColorBrewer RdBu (11 classes), blue (-1) to red (+1): matplotlib's "RdBu_r",
  // the map of the static figure. Diverging and colour-blind safe.
  var RDBU = [
    [5, 48, 97], [33, 102, 172], [67, 147, 195], [146, 197, 222], [209, 229, 240],
    [247, 247, 247], [253, 219, 199], [244, 165, 130], [214, 96, 77], [178, 24, 43],
    [103, 0, 31],
  ];

  function diverging(value) {
    var t = (clamp(value, -1, 1) + 1) * 5; // 0 .. 10
    var k = Math.min(9, Math.floor(t));
    var f = t - k;
    var a = RDBU[k];
    var b = RDBU[k + 1];
    return [0, 1, 2].map(function (c) { return Math.round(a[c] + (b[c] - a[c]) * f); });
  }

  /** Tick positions 0, s, 2s, ... below `length`, with a step from 1-2-5 so labels do not crowd. */
  function ticks(length, pixels) {
    var steps = [1, 2, 5, 10, 20, 25, 50, 100];
    var maxTicks = Math.max(2, Math.floor(pixels / 40));
    var step = steps[steps.length - 1];
    for (var s = 0; s < steps.length; s++) {
      if (Math.ceil(length / steps[s]) <= maxTicks) { step = steps[s]; break; }
    }
    var out = [];
    for (var p = 0; p < length; p += step) out.push(p);
    return out;
  }

  /** Redraw, at most once per frame, when the widget's box or the colour scheme changes. */
  function watch(root, redraw) {
    var pending = false;
    function schedule() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        redraw();
      });
    }
    if (window.ResizeObserver) new ResizeObserver(schedule).observe(root);
    window.addEventListener("resize", schedule);
    var observer = new MutationObserver(schedule);
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme", "data-md-color-primary"] });
    return schedule;
  }

  // ------------------------------------------------------------------------
  // 1. Dog bites man (Proposition 4)

  var DEFAULT_WORDS = { dog: [1, 0.5, 0, -0.5], bites: [0, 1, 0.5, 0], man: [0.5, 0, -1, 0.5] };

  /** The word vectors of data-words: equal even lengths, finite numbers; else the defaults. */
  function readWords(root) {
    var raw = root.getAttribute("data-words");
    if (!raw) return DEFAULT_WORDS;
    var words;
    try {
      words = JSON.parse(raw);
    } catch (err) {
      console.warn("posenc dog-bites-man: data-words is not JSON; using the default words", err);
      return DEFAULT_WORDS;
    }
    var names = Object.keys(words || {});
    var width = names.length ? (words[names[0]] || []).length : 0;
    var ok = names.length >= 2 && width >= 2 && width % 2 === 0 && names.every(function (name) {
      var v = words[name];
      return Array.isArray(v) && v.length === width && v.every(function (x) { return typeof x === "number" && Number.isFinite(x); });
    });
    if (!ok) {
      console.warn("posenc dog-bites-man: data-words needs two or more words, each a list of the same even number of finite numbers; using the default words");
      return DEFAULT_WORDS;
    }
    return words;
  }

  /**
   * The six steps of "How it works". `parts` names the data-part of the tables
   * that the step lights; `code` says whether the position code is on in it.
   */
  var DOG_STEPS = [
    { name: "The word vectors", short: "Word vectors", parts: ["in"], code: false },
    { name: "The scores", short: "Scores", parts: ["scores"], code: false },
    { name: "The shares", short: "Shares", parts: ["shares"], code: false },
    { name: "The outputs, in both orders", short: "Outputs", parts: ["out", "dist"], code: false },
    { name: "Add the position code", short: "Add the code", parts: ["code", "in"], code: true },
    { name: "The outputs now differ", short: "Outputs differ", parts: ["out", "dist"], code: true },
  ];
  var REVEAL_STEP = 4; // the guess is answered once the walk has shown the outputs

  /**
   * Everything the tables show for one setting of the code, in both word orders:
   * the code of each position, each sentence's inputs, scores, shares and outputs
   * (rows in sentence order), and each word's distance between its two outputs.
   */
  function dogNumbers(words, orders, speeds, withCode) {
    var width = 2 * speeds.length;
    var codes = orders[0].map(function (_, pos) {
      return withCode ? codeAt(pos, speeds) : new Array(width).fill(0);
    });
    var inputs = orders.map(function (order) {
      return order.map(function (name, pos) {
        var vector = words[name].slice();
        if (withCode) for (var c = 0; c < width; c++) vector[c] += codes[pos][c];
        return vector;
      });
    });
    var heads = inputs.map(selfAttention);
    var byWord = heads.map(function (head, s) {
      var map = {};
      orders[s].forEach(function (name, pos) { map[name] = head.outputs[pos]; });
      return map;
    });
    var distances = {};
    orders[0].forEach(function (name) { distances[name] = distance(byWord[0][name], byWord[1][name]); });
    return {
      codes: codes,
      inputs: inputs,
      scores: heads.map(function (h) { return h.scores; }),
      shares: heads.map(function (h) { return h.shares; }),
      outputs: heads.map(function (h) { return h.outputs; }),
      distances: distances,
    };
  }

  /** "(1, 0.5, 0, −0.5)": a vector at six significant digits. */
  function vectorText(v) {
    return "(" + v.map(function (x) { return sig(x); }).join(", ") + ")";
  }

  function quoted(text) {
    return "\u201c" + text + "\u201d";
  }

  /**
   * What step k (1-6) says, with the numbers it quotes taken from `num`, the
   * numbers of the step's own setting of the code.
   */
  function dogStepText(k, num, ctx) {
    var names = ctx.names;
    var first = names[0];
    var last = names[names.length - 1];
    var i = 0; // `first` is at position 0 of the first sentence,
    var j = names.length - 1; // and `last` at its end
    var t = ctx.titles;
    var list = names.map(function (n) { return n + " " + sig(num.distances[n]); }).join(", ");
    var same = names.every(function (n) { return num.distances[n] === 0; });
    var middle = names.length % 2 === 1 ? names[(names.length - 1) / 2] : null;
    switch (k) {
      case 1:
        return "Each word is a list of " + ctx.width + " numbers and serves as its own query, key and value. " +
          "Both sentences hold the same " + names.length + " vectors; only their places differ: " + first +
          " is at position 0 in " + quoted(t[0]) + " and at position " + j + " in " + quoted(t[1]) + ". " +
          first + " = " + vectorText(num.inputs[0][i]) + ".";
      case 2:
        return "A word\u2019s score for a partner is the dot product of their two vectors, divided by \u221a" +
          ctx.width + " = " + sig(Math.sqrt(ctx.width)) + ". " + first + " and " + last + " score " +
          sig(num.scores[0][i][j]) + " in " + quoted(t[0]) + " and " + sig(num.scores[1][j][i]) + " in " +
          quoted(t[1]) + ": the same two vectors, wherever they stand.";
      case 3:
        return "Softmax turns each word\u2019s scores into shares: e to the power of each score, divided by their sum, " +
          "so that a word\u2019s shares are positive and add up to 1 (one column of the table). " + first + " gives " +
          last + " the share " + sig(num.shares[0][i][j]) + " in " + quoted(t[0]) + " and " +
          sig(num.shares[1][j][i]) + " in " + quoted(t[1]) + ".";
      case 4:
        return "Each output is the mix of all the vectors, each weighted by its share. " +
          (same
            ? "The same partners with the same shares give the same mix: every word\u2019s output is the same in both orders, only in another column. "
            : "The mixes are not the same in the two orders. ") +
          "Distances between a word\u2019s two outputs: " + list + ".";
      case 5:
        return "The sinusoidal code PE(pos) (width " + ctx.width + ", base " + BASE + ") is added to the word at each position. " +
          first + " now enters as " + first + " + PE(0) in " + quoted(t[0]) + " and as " + first + " + PE(" + j +
          ") in " + quoted(t[1]) + ": two different vectors. PE(1) = " + vectorText(num.codes[1 % num.codes.length]) + ".";
      default:
        return "New inputs give new scores, shares and outputs. " +
          (same
            ? "Even so, every word\u2019s output is the same in both orders. "
            : "Each word\u2019s two outputs now differ" +
              (middle ? ", even those of " + middle + ", which stays at position " + (names.length - 1) / 2 + ": its partners carry other codes" : "") +
              ". ") +
          "Distances: " + list + ".";
    }
  }

  /** One part of a sentence's table: a group of rows, the first holding its name. */
  function dogBody(part, label, spoken, rowLabels, nCols, cells) {
    var body = el("tbody", { "data-part": part, class: "posenc-dog__group" });
    rowLabels.forEach(function (rowLabel, r) {
      var tr = el("tr", { class: r === 0 ? "posenc-dog__first" : null });
      if (r === 0) {
        tr.append(el("th", { scope: "rowgroup", rowspan: rowLabels.length, class: "posenc-dog__part" }, [
          el("span", { text: label }),
          el("span", { class: "posenc-sr-only", text: ", " + spoken }),
        ]));
      }
      tr.append(rowLabel === null
        ? el("td", { class: "posenc-dog__label" })
        : el("th", { scope: "row", class: "posenc-dog__label" }, [
          el("span", { class: "posenc-sr-only", text: "with " }),
          el("span", { text: rowLabel }),
        ]));
      var row = [];
      for (var c = 0; c < nCols; c++) {
        var td = el("td", { class: "posenc-num" });
        row.push(td);
        tr.append(td);
      }
      cells.push(row);
      body.append(tr);
    });
    return body;
  }

  function initDogBitesMan(root) {
    var words = readWords(root);
    var names = Object.keys(words);
    var n = names.length;
    var width = words[names[0]].length;
    var speeds = frequencies(width, BASE);
    var orders = [names, names.slice().reverse()];
    var titles = orders.map(function (order) { return order.join(" "); });
    var ctx = { names: names, width: width, titles: titles };
    var desc = describedBy(root);
    var announcer = makeAnnouncer(600);
    var step = root.getAttribute("data-with-code") === "true" ? 6 : 1;
    var withCode = DOG_STEPS[step - 1].code;
    var guess = null; // "same" or "differ", once the reader has chosen
    var revealed = false;
    // Whether attention alone tells the orders apart: computed, not assumed.
    var plain = dogNumbers(words, orders, speeds, false);
    var answer = names.every(function (name) { return plain.distances[name] === 0; }) ? "same" : "differ";

    // -- Guess first: the reader chooses before the walk; the answer shows on choosing or at step 4.
    var guessId = uid("dog-guess");
    var choices = [
      ["same", "No: every word\u2019s output stays the same"],
      ["differ", "Yes: some word\u2019s output changes"],
    ].map(function (choice) {
      var b = el("button", { type: "button", class: "posenc-guess__choice", "data-guess": choice[0], "aria-pressed": "false" }, [
        el("span", { text: choice[1] }),
      ]);
      b.addEventListener("click", function () {
        guess = choice[0];
        revealed = true;
        update("guess");
      });
      return b;
    });
    var reply = el("p", { class: "posenc-guess__answer", hidden: true });
    var guessBox = el("div", { class: "admonition question posenc-guess", role: "group", "aria-labelledby": guessId }, [
      el("p", {
        class: "admonition-title",
        id: guessId,
        text: "Guess first: with no position code, does attention tell " + quoted(titles[0]) + " from " + quoted(titles[1]) + "?",
      }),
      el("div", { class: "posenc-guess__choices" }, choices),
      reply,
    ]);

    // -- How it works: a step list, Previous and Next, and what the step says.
    var walkId = uid("dog-walk");
    var nowId = uid("dog-now");
    var stepButtons = DOG_STEPS.map(function (s, k) {
      var b = el("button", { type: "button", class: "posenc-walk__step", "data-step": k + 1, "aria-describedby": nowId }, [
        el("span", { class: "posenc-walk__n", text: String(k + 1) }),
        el("span", { text: s.short }),
      ]);
      b.addEventListener("click", function () { go(k + 1, "walk"); });
      return b;
    });
    var prev = el("button", { type: "button", class: "posenc-walk__move", "data-move": "-1", "aria-label": "Previous step" }, [
      el("span", { "aria-hidden": "true", text: "\u2190 " }),
      el("span", { text: "Previous" }),
    ]);
    var next = el("button", { type: "button", class: "posenc-walk__move", "data-move": "1", "aria-label": "Next step" }, [
      el("span", { text: "Next" }),
      el("span", { "aria-hidden": "true", text: " \u2192" }),
    ]);
    prev.addEventListener("click", function () { go(step - 1, "walk"); });
    next.addEventListener("click", function () { go(step + 1, "walk"); });
    var nowTitle = el("p", { class: "posenc-walk__now", id: nowId });
    var nowText = el("p", { class: "posenc-walk__text" });
    var walk = el("nav", { class: "posenc-walk", "aria-labelledby": walkId }, [
      el("p", { class: "posenc-walk__title", id: walkId, text: "How it works, in " + DOG_STEPS.length + " steps" }),
      el("ol", { class: "posenc-walk__list" }, stepButtons.map(function (b) { return el("li", {}, [b]); })),
      el("div", { class: "posenc-walk__moves" }, [prev, next]),
      el("div", { class: "posenc-walk__panel" }, [nowTitle, nowText]),
    ]);
    // Arrow keys, Home and End move through the steps from any of the walk's buttons.
    walk.addEventListener("keydown", function (event) {
      var to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 1, End: DOG_STEPS.length }[event.key];
      if (to === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      go(to, "walk");
      if (document.activeElement && document.activeElement.classList.contains("posenc-walk__step")) {
        stepButtons[step - 1].focus();
      }
    });

    var button = el("button", {
      type: "button",
      class: "posenc-toggle",
      "aria-pressed": String(withCode),
      "aria-describedby": desc,
    }, [
      el("span", { class: "posenc-toggle__switch", "aria-hidden": "true" }),
      el("span", { text: "Add the position code (width " + width + ", base " + BASE + ")" }),
    ]);

    // One table per word order. Each word is a column (in sentence order) holding,
    // downwards, its position code, its input, its score for each partner, the
    // share it gives each partner, and its output; the two tables sit side by side.
    var parts = [];
    var cells = orders.map(function (order, s) {
      var mine = { code: [], in: [], scores: [], shares: [], out: [] };
      var head = el("thead", {}, [
        el("tr", {}, [el("td", { class: "posenc-dog__corner", colspan: 2 })].concat(order.map(function (name) {
          return el("th", { scope: "col", class: "posenc-dog__word posenc-dog__word--" + (names.indexOf(name) % 3 + 1) }, [
            el("span", { class: "posenc-dog__pos", text: "pos " + order.indexOf(name) }),
            el("span", { text: name }),
          ]);
        }))),
      ]);
      var features = new Array(width).fill(null);
      var bodies = [
        dogBody("code", "code", "position code PE(pos)", features, n, mine.code),
        dogBody("in", "in", "input: word + code", features, n, mine.in),
        dogBody("scores", "scores", "score for each partner", order, n, mine.scores),
        dogBody("shares", "shares", "share given to each partner", order, n, mine.shares),
        dogBody("out", "out", "attention output", features, n, mine.out),
      ];
      bodies.forEach(function (body) { parts.push(body); });
      var table = el("table", { class: "posenc-table posenc-dog__table", "data-sentence": titles[s] }, [
        el("caption", { text: quoted(titles[s]) }),
        head,
      ].concat(bodies));
      mine.card = el("div", { class: "posenc-dog__card" }, [table]);
      return mine;
    });

    // The comparison: one row per word.
    var distBody = el("tbody");
    var distCells = {};
    names.forEach(function (name) {
      var value = el("td", { class: "posenc-num" });
      var bar = el("span", { class: "posenc-bar__fill" });
      distBody.append(el("tr", { class: "posenc-dog__word--" + (names.indexOf(name) % 3 + 1) }, [
        el("th", { scope: "row", text: name }),
        value,
        el("td", { class: "posenc-bar", "aria-hidden": "true" }, [bar]),
      ]));
      distCells[name] = { value: value, bar: bar };
    });
    var distTable = el("table", { class: "posenc-table posenc-dog__dist", "data-part": "dist" }, [
      el("caption", { text: "Distance between each word\u2019s outputs in the two sentences" }),
      el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", text: "word" }),
        el("th", { scope: "col", class: "posenc-right", text: "distance" }),
        el("td", { class: "posenc-bar", "aria-hidden": "true" }),
      ])]),
      distBody,
    ]);
    parts.push(distTable);
    var verdict = el("p", { class: "posenc-dog__verdict" });

    var live = el("div", { class: "posenc-widget__live" }, [
      guessBox,
      walk,
      el("div", { class: "posenc-widget__controls" }, [button]),
      el("div", { class: "posenc-dog__cards" }, cells.map(function (c) { return c.card; })),
      distTable,
      verdict,
      announcer.region,
    ]);

    /** Move the walk to step `to` (clamped); the step decides whether the code is on. */
    function go(to, why) {
      to = clamp(to, 1, DOG_STEPS.length);
      if (to === step && why === "walk") return;
      step = to;
      withCode = DOG_STEPS[step - 1].code;
      if (step >= REVEAL_STEP) revealed = true;
      update(why);
    }

    function fill(rows, values, transpose) {
      rows.forEach(function (row, r) {
        row.forEach(function (td, c) { td.textContent = fixed(transpose ? values[c][r] : values[r][c], 3); });
      });
    }

    function guessReply() {
      var right = answer === "same"
        ? "No: attention alone cannot tell the two orders apart. Each word meets the same partners with the same scores and shares, so its output is the same in both sentences, only in another column (step 4). The position code is what tells them apart (steps 5 and 6)."
        : "Yes: these outputs differ between the two orders (step 4).";
      if (guess === null) return "Answer. " + right;
      return (guess === answer ? "Your guess is right. " : "Your guess was the other answer. ") + right;
    }

    /** Redraw everything for the current step; `why` says what to announce ("walk", "code", "guess"). */
    function update(why) {
      var num = dogNumbers(words, orders, speeds, withCode);
      var lit = DOG_STEPS[step - 1].parts;
      var largest = Math.max.apply(null, names.map(function (name) { return num.distances[name]; }));

      cells.forEach(function (mine, s) {
        fill(mine.code, num.codes, true); // the word at position c gets PE(c)
        fill(mine.in, num.inputs[s], true);
        fill(mine.scores, num.scores[s], true); // column = the scoring word, row = its partner
        fill(mine.shares, num.shares[s], true);
        fill(mine.out, num.outputs[s], true);
      });
      parts.forEach(function (part) {
        var on = lit.indexOf(part.getAttribute("data-part")) >= 0;
        part.classList.toggle("posenc-dog--lit", on);
        if (on) part.setAttribute("data-lit", "");
        else part.removeAttribute("data-lit");
        if (part.getAttribute("data-part") === "code") part.hidden = !withCode;
      });
      names.forEach(function (name) {
        distCells[name].value.textContent = sig(num.distances[name]);
        distCells[name].bar.style.width = largest > 0 ? (100 * num.distances[name] / largest).toFixed(1) + "%" : "0";
      });
      verdict.textContent = withCode
        ? "With the code added, the same word at a different place has a different output: the two sentences are now told apart."
        : "Without a position code each word\u2019s output is the same in both sentences: distance 0, exactly. Attention sees which words are present, not their order.";
      button.setAttribute("aria-pressed", String(withCode));

      var info = DOG_STEPS[step - 1];
      var heading = "Step " + step + " of " + DOG_STEPS.length + ": " + info.name;
      var text = dogStepText(step, num, ctx);
      nowTitle.textContent = heading;
      nowText.textContent = text;
      stepButtons.forEach(function (b, k) {
        if (k === step - 1) b.setAttribute("aria-current", "step");
        else b.removeAttribute("aria-current");
      });
      prev.setAttribute("aria-disabled", String(step === 1));
      next.setAttribute("aria-disabled", String(step === DOG_STEPS.length));
      choices.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-guess") === guess)); });
      reply.hidden = !revealed;
      reply.textContent = revealed ? guessReply() : "";

      var state = {
        withCode: withCode,
        width: width,
        sentences: titles,
        distances: num.distances,
        code: withCode ? num.codes : null,
        outputs: {},
        inputs: {},
        scores: {},
        shares: {},
        step: step,
        stepName: info.name,
        lit: lit,
        guess: guess,
        answer: answer,
        revealed: revealed,
      };
      titles.forEach(function (title, s) {
        state.outputs[title] = num.outputs[s];
        state.inputs[title] = num.inputs[s];
        state.scores[title] = num.scores[s];
        state.shares[title] = num.shares[s];
      });
      // The numbers this step is about, as the lit part of the tables shows them.
      state.shown = {
        in: { inputs: state.inputs },
        scores: { scores: state.scores },
        shares: { shares: state.shares },
        out: { outputs: state.outputs, distances: num.distances },
        code: { code: num.codes, inputs: state.inputs },
      }[lit[0]];
      root.setAttribute("data-state", JSON.stringify(state));

      if (why === "code") {
        announcer.say(
          (withCode ? "Position code added. " : "Position code removed. ") +
          "Distances between the two sentences: " +
          names.map(function (name) { return name + " " + sig(num.distances[name]); }).join(", ") + ". " + heading + "."
        );
      } else if (why === "walk") {
        announcer.say(heading + ". " + text + (revealed && step === REVEAL_STEP ? " " + reply.textContent : ""));
      } else if (why === "guess") {
        announcer.say(reply.textContent);
      }
    }

    // The switch jumps to the walk's outputs with or without the code: step 6 or step 4.
    button.addEventListener("click", function () {
      go(withCode ? REVEAL_STEP : DOG_STEPS.length, "code");
    });

    update(null);
    return live;
  }

  // ------------------------------------------------------------------------
  // 2. The code as a heatmap (Proposition 5)

  function initHeatmap(root) {
    var desc = describedBy(root);
    var state = {
      width: clamp(2 * Math.round(intAttr(root, "data-width", 32) / 2), 2, 128),
      length: clamp(intAttr(root, "data-length", 40), 1, 200),
      position: 0,
    };
    state.position = clamp(intAttr(root, "data-position", 10), 0, state.length - 1);
    var table = [];
    var speeds = [];
    var announcer = makeAnnouncer(500);

    var widthCtl = rangeControl({ name: "width", label: "Width <var>d</var>", min: 2, max: 128, step: 2, value: state.width, describedBy: desc });
    var lengthCtl = rangeControl({ name: "length", label: "Positions", min: 1, max: 200, value: state.length, describedBy: desc });

    var heatId = uid("heat");
    var heat = el("canvas", {
      id: heatId,
      class: "posenc-heat__map",
      tabindex: "0",
      role: "slider",
      "aria-label": "Position to read in the heatmap (arrow keys move it)",
      "aria-describedby": desc,
      "aria-orientation": "horizontal",
      "aria-valuemin": "0",
    });
    var waves = el("canvas", { class: "posenc-heat__waves", role: "img" });

    var codeTitle = el("p", { class: "posenc-heat__code-title" });
    var codeBody = el("tbody");
    var codeTable = el("table", { class: "posenc-table posenc-heat__table" }, [
      el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", class: "posenc-right", text: "pair" }),
        el("th", { scope: "col", class: "posenc-right", text: "sin (dim 2i)" }),
        el("th", { scope: "col", class: "posenc-right", text: "cos (dim 2i+1)" }),
      ])]),
      codeBody,
    ]);
    var codeId = uid("code");
    var codePanel = el("div", {
      class: "posenc-heat__code",
      id: codeId,
      role: "region",
      tabindex: "0",
      "aria-label": "Code of the selected position",
    }, [codeTitle, codeTable]);
    heat.setAttribute("aria-controls", codeId);

    var live = el("div", { class: "posenc-widget__live" }, [
      el("div", { class: "posenc-widget__controls" }, [widthCtl.wrap, lengthCtl.wrap]),
      el("div", { class: "posenc-heat__body" }, [
        el("div", { class: "posenc-heat__plots" }, [heat, waves]),
        codePanel,
      ]),
      announcer.region,
    ]);

    // Layout of both canvases: the same horizontal mapping, so the waves line up.
    var MARGIN = { left: 54, right: 8 };
    var HEAT_TOP = 4;
    var HEAT_BOTTOM = 22;
    var STRIP = 62;

    function pairsShown() {
      var half = state.width / 2;
      var chosen = [0, Math.floor((half - 1) / 2), half - 1];
      return chosen.filter(function (p, k) { return chosen.indexOf(p) === k; });
    }

    function rebuildTable() {
      imageReady = false;
      speeds = frequencies(state.width, BASE);
      table = [];
      for (var pos = 0; pos < state.length; pos++) table.push(codeAt(pos, speeds));
      codeBody.textContent = "";
      for (var i = 0; i < state.width / 2; i++) {
        codeBody.append(el("tr", {}, [
          el("th", { scope: "row", class: "posenc-num", text: String(i) }),
          el("td", { class: "posenc-num" }),
          el("td", { class: "posenc-num" }),
        ]));
      }
    }

    function update(announce) {
      var row = table[state.position];
      codeTitle.textContent = "PE(" + state.position + "), width " + state.width + ":";
      var rows = codeBody.rows;
      for (var i = 0; i < rows.length; i++) {
        rows[i].cells[1].textContent = sig(row[2 * i]);
        rows[i].cells[2].textContent = sig(row[2 * i + 1]);
      }
      widthCtl.output.textContent = String(state.width);
      lengthCtl.output.textContent = String(state.length);
      heat.setAttribute("aria-valuemax", String(state.length - 1));
      heat.setAttribute("aria-valuenow", String(state.position));
      heat.setAttribute("aria-valuetext", "position " + state.position + " of 0 to " + (state.length - 1));
      var shown = pairsShown();
      waves.setAttribute("aria-label",
        "Dimensions " + shown.map(function (p) { return 2 * p; }).join(", ") +
        " (the sine of pairs " + shown.join(", ") + ") drawn as waves over positions 0 to " +
        (state.length - 1) + ", with position " + state.position + " marked.");
      root.setAttribute("data-state", JSON.stringify({
        width: state.width,
        length: state.length,
        position: state.position,
        pairs: shown,
        code: row,
      }));
      if (announce) {
        announcer.say(
          "Width " + state.width + ", " + state.length + " positions. Position " + state.position +
          ": pair 0 sin " + sig(row[0]) + ", cos " + sig(row[1]) +
          "; slowest pair sin " + sig(row[state.width - 2]) + ", cos " + sig(row[state.width - 1]) + "."
        );
      }
      redraw();
    }

    function geometry(width) {
      var plot = width - MARGIN.left - MARGIN.right;
      return { x0: MARGIN.left, plot: Math.max(1, plot), cell: Math.max(1, plot) / state.length };
    }

    // The cells, one pixel each, drawn once per table and scaled up on every redraw.
    var offscreen = document.createElement("canvas");
    var imageReady = false;

    function paintCells() {
      var d = state.width;
      var L = state.length;
      offscreen.width = L;
      offscreen.height = d;
      var octx = offscreen.getContext("2d");
      var image = octx.createImageData(L, d);
      for (var pos = 0; pos < L; pos++) {
        for (var dim = 0; dim < d; dim++) {
          var rgb = diverging(table[pos][dim]);
          var at = 4 * (dim * L + pos);
          image.data[at] = rgb[0];
          image.data[at + 1] = rgb[1];
          image.data[at + 2] = rgb[2];
          image.data[at + 3] = 255;
        }
      }
      octx.putImageData(image, 0, 0);
      imageReady = true;
    }

    function drawHeat(colours) {
      // Tall enough that every dimension gets about 2.5 px, within 150..360 px.
      var height = clamp(Math.round(Math.max(heat.clientWidth * 0.42, 2.5 * state.width + 26)), 150, 360);
      var box = fitCanvas(heat, height);
      var ctx = box.ctx;
      var g = geometry(box.width);
      var top = HEAT_TOP;
      var plotH = height - HEAT_TOP - HEAT_BOTTOM;
      var d = state.width;

      if (!imageReady) paintCells();
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(offscreen, g.x0, top, g.plot, plotH);

      ctx.font = "11px " + colours.font;
      ctx.fillStyle = colours.ink;
      ctx.textBaseline = "middle";
      ctx.textAlign = "right";
      var rowH = plotH / d;
      pairsShown().forEach(function (pair, k) {
        var y = top + (2 * pair + 0.5) * rowH;
        ctx.fillStyle = colours.lines[k];
        ctx.fillRect(g.x0 - 8, y - 1.5, 6, 3);
        ctx.fillStyle = colours.ink;
        ctx.fillText("dim " + 2 * pair, g.x0 - 11, y);
      });
      drawTicks(ctx, g, top + plotH, colours);

      // The selected column: an ink frame around a paper frame, visible on every cell colour.
      var x = g.x0 + state.position * g.cell;
      var w = Math.max(g.cell, 2);
      ctx.lineWidth = 2;
      ctx.strokeStyle = colours.ink;
      ctx.strokeRect(x - 1.5, top - 1, w + 3, plotH + 2);
      ctx.lineWidth = 1;
      ctx.strokeStyle = colours.paper;
      ctx.strokeRect(x - 0.5, top + 0.5, w + 1, plotH - 1);
    }

    function drawTicks(ctx, g, y, colours, title) {
      ctx.strokeStyle = colours.muted;
      ctx.fillStyle = colours.ink;
      ctx.lineWidth = 1;
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      ticks(state.length, g.plot).forEach(function (p) {
        var x = g.x0 + (p + 0.5) * g.cell;
        ctx.beginPath();
        ctx.moveTo(x, y);
        ctx.lineTo(x, y + 4);
        ctx.stroke();
        ctx.fillText(String(p), x, y + 6);
      });
      if (title) {
        ctx.textAlign = "right";
        ctx.fillText("position", g.x0 + g.plot, y + 22);
      }
    }

    function drawWaves(colours) {
      var shown = pairsShown();
      var height = shown.length * STRIP + 40;
      var box = fitCanvas(waves, height);
      var ctx = box.ctx;
      var g = geometry(box.width);
      var L = state.length;
      ctx.font = "11px " + colours.font;
      shown.forEach(function (pair, k) {
        var top = k * STRIP;
        var mid = top + 16 + (STRIP - 20) / 2;
        var amp = (STRIP - 24) / 2;
        var w = speeds[pair];
        ctx.fillStyle = colours.ink;
        ctx.textAlign = "left";
        ctx.textBaseline = "top";
        ctx.fillText(
          "dim " + 2 * pair + " (sin of pair " + pair + "), wavelength " + sig(2 * Math.PI / w),
          g.x0, top + 2
        );
        ctx.textAlign = "right";
        ctx.textBaseline = "middle";
        ctx.fillText("1", g.x0 - 6, mid - amp);
        ctx.fillText(MINUS + "1", g.x0 - 6, mid + amp);
        ctx.strokeStyle = colours.muted;
        ctx.lineWidth = 0.75;
        ctx.beginPath();
        ctx.moveTo(g.x0, mid);
        ctx.lineTo(g.x0 + g.plot, mid);
        ctx.stroke();

        ctx.strokeStyle = colours.lines[k];
        ctx.lineWidth = 1.75;
        ctx.beginPath();
        var steps = Math.max(2, Math.ceil(g.plot));
        for (var s = 0; s <= steps; s++) {
          var t = -0.5 + (s / steps) * L;
          var px = g.x0 + (s / steps) * g.plot;
          var py = mid - amp * Math.sin(w * t);
          if (s === 0) ctx.moveTo(px, py);
          else ctx.lineTo(px, py);
        }
        ctx.stroke();
        ctx.fillStyle = colours.lines[k];
        if (g.cell >= 4) {
          for (var pos = 0; pos < L; pos++) {
            ctx.beginPath();
            ctx.arc(g.x0 + (pos + 0.5) * g.cell, mid - amp * table[pos][2 * pair], 2, 0, 2 * Math.PI);
            ctx.fill();
          }
        }
        // The selected position's sample, larger and ringed.
        ctx.beginPath();
        ctx.arc(g.x0 + (state.position + 0.5) * g.cell, mid - amp * table[state.position][2 * pair], 4.5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.lineWidth = 1.5;
        ctx.strokeStyle = colours.ink;
        ctx.stroke();
      });
      // The marker through all strips.
      var x = g.x0 + (state.position + 0.5) * g.cell;
      ctx.strokeStyle = colours.ink;
      ctx.lineWidth = 1;
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(x, 14);
      ctx.lineTo(x, shown.length * STRIP);
      ctx.stroke();
      ctx.setLineDash([]);
      drawTicks(ctx, g, shown.length * STRIP, colours, true);
    }

    function redrawNow() {
      var colours = palette(root);
      drawHeat(colours);
      drawWaves(colours);
    }
    var redraw = watch(root, redrawNow);

    function select(pos, announce) {
      pos = clamp(pos, 0, state.length - 1);
      if (pos === state.position) return;
      state.position = pos;
      update(announce);
    }

    function positionAt(canvas, clientX) {
      var rect = canvas.getBoundingClientRect();
      var g = geometry(rect.width);
      return clamp(Math.floor((clientX - rect.left - g.x0) / g.cell), 0, state.length - 1);
    }

    [heat, waves].forEach(function (canvas) {
      canvas.addEventListener("pointerdown", function (event) {
        if (event.button !== 0) return;
        if (canvas.setPointerCapture) canvas.setPointerCapture(event.pointerId);
        if (canvas === heat && event.pointerType === "mouse") heat.focus({ preventScroll: true });
        select(positionAt(canvas, event.clientX), true);
      });
      canvas.addEventListener("pointermove", function (event) {
        // Mouse: hovering selects. Pen and touch: only while pressed (a drag).
        if (event.pointerType !== "mouse" && !event.buttons) return;
        select(positionAt(canvas, event.clientX), true);
      });
    });

    heat.addEventListener("keydown", function (event) {
      var moves = {
        ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10,
      };
      var pos = state.position;
      if (event.key in moves) pos += moves[event.key];
      else if (event.key === "Home") pos = 0;
      else if (event.key === "End") pos = state.length - 1;
      else return;
      event.preventDefault();
      select(pos, true);
    });

    widthCtl.input.addEventListener("input", function () {
      state.width = Number(widthCtl.input.value);
      rebuildTable();
      update(true);
    });
    lengthCtl.input.addEventListener("input", function () {
      state.length = Number(lengthCtl.input.value);
      state.position = Math.min(state.position, state.length - 1);
      rebuildTable();
      update(true);
    });

    rebuildTable();
    update(false);
    return live;
  }

  // ------------------------------------------------------------------------
  // 3. The clock bank (Proposition 8)

  function initClockBank(root) {
    var desc = describedBy(root);
    var width = clamp(2 * Math.round(intAttr(root, "data-width", 64) / 2), 2, 1024);
    var half = width / 2;
    var pairs = (root.getAttribute("data-pairs") || "0,6,12,18,24,31")
      .split(",").map(Number)
      .filter(function (p, k, all) { return Number.isInteger(p) && p >= 0 && p < half && all.indexOf(p) === k; });
    if (!pairs.length) pairs = [0, half - 1].filter(function (p, k, all) { return all.indexOf(p) === k; });
    var speeds = frequencies(width, BASE);
    // Angles stay below 1500 rad, where rounding pos * w to float64 moves sin and cos by
    // less than 1e-12: the numbers shown are those of the exact code to 12 decimals.
    var MAX_POS = 1000;
    var MAX_K = 500;
    var state = {
      position: clamp(intAttr(root, "data-position", 3), 0, MAX_POS),
      k: clamp(intAttr(root, "data-k", 2), -MAX_K, MAX_K),
      pair: pairs[0],
    };
    var announcer = makeAnnouncer(500);

    var posCtl = pairedControl({
      name: "position", label: "Position <var>pos</var>", min: 0, max: MAX_POS, value: state.position,
      describedBy: desc, numberLabel: "Position, exact value",
    }, function (value) { state.position = value; update(true); });
    var kCtl = pairedControl({
      name: "shift", label: "Shift <var>k</var>", min: -MAX_K, max: MAX_K, value: state.k,
      describedBy: desc, numberLabel: "Shift k, exact value",
    }, function (value) { state.k = value; update(true); });

    // The clocks: one toggle button each; the pressed one is the pair whose block is shown.
    var clocks = pairs.map(function (pair) {
      var svg = svgEl("svg", { viewBox: "-1.25 -1.25 2.5 2.5", class: "posenc-clock__face", "aria-hidden": "true", focusable: "false" });
      svg.append(
        svgEl("circle", { cx: 0, cy: 0, r: 1, class: "posenc-clock__rim" }),
        svgEl("line", { x1: 0, y1: -1, x2: 0, y2: -0.82, class: "posenc-clock__tick" })
      );
      var arc = svgEl("path", { class: "posenc-clock__arc" });
      var target = svgEl("line", { x1: 0, y1: 0, class: "posenc-clock__target" });
      var hand = svgEl("line", { x1: 0, y1: 0, class: "posenc-clock__hand" });
      var hub = svgEl("circle", { cx: 0, cy: 0, r: 0.08, class: "posenc-clock__hub" });
      svg.append(arc, target, hand, hub);
      var wavelength = 2 * Math.PI / speeds[pair];
      var button = el("button", {
        type: "button",
        class: "posenc-clock",
        "aria-pressed": "false",
        "aria-label": "Pair " + pair + ", wavelength " + sig(wavelength) + " positions",
      }, [
        svg,
        el("span", { class: "posenc-clock__name", text: "pair " + pair }),
        el("span", { class: "posenc-clock__wl", text: "\u03bb = " + sig(wavelength) }),
      ]);
      button.addEventListener("click", function () {
        state.pair = pair;
        update(true);
      });
      return { pair: pair, button: button, hand: hand, target: target, arc: arc };
    });

    var codeBody = el("tbody");
    var codeRows = pairs.map(function (pair) {
      var s = el("td", { class: "posenc-num" });
      var c = el("td", { class: "posenc-num" });
      var tr = el("tr", {}, [
        el("th", { scope: "row", class: "posenc-num", text: String(pair) }),
        el("td", { class: "posenc-num", text: sig(speeds[pair]) }),
        s,
        c,
      ]);
      codeBody.append(tr);
      return { tr: tr, s: s, c: c };
    });
    var codeCaption = el("caption");
    var codeTable = el("table", { class: "posenc-table posenc-clocks__code" }, [
      codeCaption,
      el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", class: "posenc-right", text: "pair i" }),
        el("th", { scope: "col", class: "posenc-right", html: "\u03c9<sub>i</sub>" }),
        el("th", { scope: "col", class: "posenc-right", text: "sin" }),
        el("th", { scope: "col", class: "posenc-right", text: "cos" }),
      ])]),
      codeBody,
    ]);

    var angleLine = el("p", { class: "posenc-clocks__angle" });
    var matrixCells = [[el("td"), el("td")], [el("td"), el("td")]];
    var matrix = el("table", { class: "posenc-matrix", "aria-label": "The 2 by 2 block of M k" }, [
      el("tbody", {}, matrixCells.map(function (row) { return el("tr", {}, row); })),
    ]);
    var vecIn = el("span", { class: "posenc-num" });
    var vecRotated = el("span", { class: "posenc-num" });
    var vecTarget = el("span", { class: "posenc-num" });
    var blockTitle = el("p", { class: "posenc-clocks__block-title" });
    var rotationPanel = el("div", { class: "posenc-clocks__rotation" }, [
      blockTitle,
      angleLine,
      el("div", { class: "posenc-clocks__matrix" }, [
        el("span", { class: "posenc-clocks__lhs", html: "block of M<sub>k</sub> =" }),
        matrix,
      ]),
      el("dl", { class: "posenc-clocks__vectors" }, [
        el("dt", { text: "on this pair, PE(pos)" }), el("dd", {}, [vecIn]),
        el("dt", { text: "the block times PE(pos)" }), el("dd", {}, [vecRotated]),
        el("dt", { text: "PE(pos + k), computed directly" }), el("dd", {}, [vecTarget]),
      ]),
    ]);

    var live = el("div", { class: "posenc-widget__live" }, [
      el("div", { class: "posenc-widget__controls" }, [posCtl.wrap, kCtl.wrap]),
      el("div", { class: "posenc-clocks__bank", role: "group", "aria-label": "Clocks, fast to slow; press one to show its block of M_k" },
        clocks.map(function (clock) { return clock.button; })),
      el("div", { class: "posenc-clocks__readout" }, [el("div", { class: "posenc-scroll" }, [codeTable]), rotationPanel]),
      announcer.region,
    ]);

    function tip(theta, radius) {
      // Angle theta clockwise from twelve o'clock: the point (sin, cos) drawn with y up.
      return [radius * Math.sin(theta), -radius * Math.cos(theta)];
    }

    function arcPath(from, by, radius) {
      var turn = 2 * Math.PI;
      var rest = by - turn * Math.trunc(by / turn); // the part of the turn past whole turns
      if (Math.abs(rest) < 1e-3) return "";
      rest = clamp(rest, -turn + 1e-3, turn - 1e-3);
      var a = tip(from, radius);
      var b = tip(from + rest, radius);
      return "M" + a[0].toFixed(4) + " " + a[1].toFixed(4) +
        " A" + radius + " " + radius + " 0 " + (Math.abs(rest) > Math.PI ? 1 : 0) + " " + (rest > 0 ? 1 : 0) +
        " " + b[0].toFixed(4) + " " + b[1].toFixed(4);
    }

    function update(announce) {
      var p = state.position;
      var k = state.k;
      var code = pairs.map(function (pair) {
        var w = speeds[pair];
        return [Math.sin(p * w), Math.cos(p * w)];
      });
      var w = speeds[state.pair];
      var angle = w * k;
      var ca = Math.cos(angle);
      var sa = Math.sin(angle);
      var block = [[ca, sa], [-sa, ca]];
      var here = code[pairs.indexOf(state.pair)];
      var rotated = [
        block[0][0] * here[0] + block[0][1] * here[1],
        block[1][0] * here[0] + block[1][1] * here[1],
      ];
      var target = [Math.sin((p + k) * w), Math.cos((p + k) * w)];

      clocks.forEach(function (clock, n) {
        var theta = p * speeds[clock.pair];
        var end = tip(theta, 0.84);
        setAttrs(clock.hand, { x2: end[0].toFixed(4), y2: end[1].toFixed(4) });
        var chosen = clock.pair === state.pair;
        clock.button.setAttribute("aria-pressed", String(chosen));
        if (chosen) {
          var shifted = tip(theta + angle, 0.84);
          setAttrs(clock.target, { x2: shifted[0].toFixed(4), y2: shifted[1].toFixed(4) });
          clock.arc.setAttribute("d", arcPath(theta, angle, 0.5));
        } else {
          setAttrs(clock.target, { x2: 0, y2: 0 });
          clock.arc.setAttribute("d", "");
        }
        codeRows[n].s.textContent = sig(code[n][0]);
        codeRows[n].c.textContent = sig(code[n][1]);
        codeRows[n].tr.classList.toggle("posenc-row--chosen", chosen);
      });

      posCtl.number.value = String(p);
      posCtl.input.value = String(p);
      kCtl.number.value = String(k);
      kCtl.input.value = String(k);
      codeCaption.textContent = "PE(" + p + ") on these pairs (width " + width + ")";
      blockTitle.textContent = "Shift by k = " + sig(k) + " on pair " + state.pair + ":";
      var turns = angle / (2 * Math.PI);
      angleLine.textContent = "";
      angleLine.append(
        "angle a = \u03c9",
        el("sub", { text: String(state.pair) }),
        " k = " + sig(angle) + " rad" + (Math.abs(turns) >= 1 ? " (" + sig(turns, 4) + " turns)" : "")
      );
      matrixCells[0][0].textContent = sig(block[0][0]);
      matrixCells[0][1].textContent = sig(block[0][1]);
      matrixCells[1][0].textContent = sig(block[1][0]);
      matrixCells[1][1].textContent = sig(block[1][1]);
      vecIn.textContent = "(" + sig(here[0]) + ", " + sig(here[1]) + ")";
      vecRotated.textContent = "(" + sig(rotated[0]) + ", " + sig(rotated[1]) + ")";
      vecTarget.textContent = "(" + sig(target[0]) + ", " + sig(target[1]) + ")";

      root.setAttribute("data-state", JSON.stringify({
        width: width,
        base: BASE,
        position: p,
        k: k,
        pairs: pairs,
        pair: state.pair,
        code: code,
        angle: angle,
        block: block,
        rotated: rotated,
        target: target,
      }));
      if (announce) {
        announcer.say(
          "Position " + p + ", shift " + k + ", pair " + state.pair + ". Rotation angle " + sig(angle) +
          " radians. Rotated point (" + sig(rotated[0]) + ", " + sig(rotated[1]) + "), equal to the code at position " +
          (p + k) + " on this pair."
        );
      }
    }

    update(false);
    return live;
  }

  // ------------------------------------------------------------------------
  // 4. ALiBi (Proposition 16)

  /**
   * ALiBi's head slopes as the reference code chooses them: for c = 2^floor(log2 H),
   * 2^(-8h/c) for h = 1 .. c, then the first H - c of every other slope of the series
   * for 2c heads, 2^(-4h/c) for h = 1, 3, 5, ...
   */
  function alibiSlopes(heads) {
    var c = 1;
    while (2 * c <= heads) c *= 2;
    var out = [];
    for (var h = 1; h <= c; h++) out.push(Math.pow(2, -8 * h / c));
    for (var odd = 1; out.length < heads; odd += 2) out.push(Math.pow(2, -4 * odd / c));
    return out;
  }

  function initAlibi(root) {
    var desc = describedBy(root);
    var MAX_HEADS = 32;
    var length = clamp(intAttr(root, "data-length", 12), 2, 24);
    var state = {
      heads: clamp(intAttr(root, "data-heads", 8), 1, MAX_HEADS),
      query: 0,
      head: 1,
    };
    state.query = clamp(intAttr(root, "data-query", length - 1), 0, length - 1);
    var announcer = makeAnnouncer(500);

    var headsCtl = pairedControl({
      name: "heads", label: "Heads <var>H</var>", min: 1, max: MAX_HEADS, value: state.heads,
      describedBy: desc, numberLabel: "Heads H, exact value",
    }, function (value) {
      state.heads = value;
      state.head = Math.min(state.head, value);
      rebuild();
      update(true);
    });
    var queryCtl = pairedControl({
      name: "query", label: "Query position <var>i</var>", min: 0, max: length - 1, value: state.query,
      describedBy: desc, numberLabel: "Query position i, exact value",
    }, function (value) { state.query = value; update(true); });
    var headCtl = pairedControl({
      name: "head", label: "Head <var>h</var> to weigh", min: 1, max: state.heads, value: state.head,
      describedBy: desc, numberLabel: "Head h, exact value",
    }, function (value) { state.head = value; update(true); });

    var caption = el("caption");
    var headRow = el("tr", {}, [
      el("th", { scope: "col", class: "posenc-right", text: "head h" }),
      el("th", { scope: "col", class: "posenc-right", text: "slope m_h" }),
    ]);
    for (var j = 0; j < length; j++) {
      headRow.append(el("th", { scope: "col", class: "posenc-right", text: "j = " + j }));
    }
    var body = el("tbody");
    var table = el("table", { class: "posenc-table posenc-alibi__bias" }, [caption, el("thead", {}, [headRow]), body]);
    var weightCaption = el("caption");
    var weightRow = el("tr");
    var weightHead = el("tr");
    for (var k = 0; k < length; k++) weightHead.append(el("th", { scope: "col", class: "posenc-right", text: "j = " + k }));
    var weights = el("table", { class: "posenc-table posenc-alibi__weights" }, [
      weightCaption, el("thead", {}, [weightHead]), el("tbody", {}, [weightRow]),
    ]);
    var biasId = uid("alibi-bias");
    var live = el("div", { class: "posenc-widget__live" }, [
      el("div", { class: "posenc-widget__controls" }, [headsCtl.wrap, queryCtl.wrap, headCtl.wrap]),
      el("div", { class: "posenc-scroll", id: biasId, role: "region", tabindex: "0", "aria-label": "Bias of every head for the chosen query" }, [table]),
      el("div", { class: "posenc-scroll", role: "region", tabindex: "0", "aria-label": "Weights the bias alone gives the keys" }, [weights]),
      announcer.region,
    ]);
    var rows = [];
    var slopes = [];

    function rebuild() {
      slopes = alibiSlopes(state.heads);
      body.textContent = "";
      rows = slopes.map(function (slope, index) {
        var cells = [];
        var tr = el("tr", {}, [
          el("th", { scope: "row", class: "posenc-num", text: String(index + 1) }),
          el("td", { class: "posenc-num", text: sig(slope, 4) }),
        ]);
        for (var j = 0; j < length; j++) {
          var td = el("td", { class: "posenc-num" });
          cells.push(td);
          tr.append(td);
        }
        body.append(tr);
        return { tr: tr, cells: cells };
      });
      headCtl.input.max = String(state.heads);
      headCtl.number.max = String(state.heads);
      headCtl.input.value = String(state.head);
      headCtl.number.value = String(state.head);
    }

    function update(announce) {
      var i = state.query;
      var bias = slopes.map(function (slope) {
        var row = [];
        for (var j = 0; j < length; j++) row.push(j <= i ? -slope * (i - j) : null);
        return row;
      });
      rows.forEach(function (row, index) {
        row.tr.classList.toggle("posenc-alibi__chosen", index + 1 === state.head);
        row.cells.forEach(function (td, j) {
          td.textContent = j <= i ? sig(bias[index][j], 3) : "masked";
          td.classList.toggle("posenc-alibi__masked", j > i);
        });
      });
      // Softmax of the chosen head's bias row over the visible keys j <= i.
      var chosen = bias[state.head - 1];
      var total = 0;
      var w = chosen.map(function (b) { return b === null ? 0 : Math.exp(b); });
      w.forEach(function (x) { total += x; });
      w = w.map(function (x, j) { return j <= i ? x / total : null; });
      weightRow.textContent = "";
      w.forEach(function (x) {
        weightRow.append(el("td", { class: "posenc-num", text: x === null ? "masked" : fixed(x, 3) }));
      });
      caption.textContent = "Bias \u2212m_h (i \u2212 j) added to the score of query i = " + i + " and key j, " + state.heads + " heads";
      weightCaption.textContent = "Head " + state.head + ": the weights of the keys if the scores were the bias alone";
      root.setAttribute("data-state", JSON.stringify({
        heads: state.heads,
        length: length,
        query: i,
        head: state.head,
        slopes: slopes,
        bias: bias,
        weights: w,
      }));
      if (announce) {
        var reach = 1 / slopes[state.head - 1];
        announcer.say(
          state.heads + " heads. Query " + i + ". Head " + state.head + ": slope " + sig(slopes[state.head - 1], 4) +
          ", the bias falls by 1 every " + sig(reach, 4) + " positions; key " + i + " gets weight " + fixed(w[i], 3) + "."
        );
      }
    }

    rebuild();
    update(false);
    return live;
  }

  // ------------------------------------------------------------------------
  // 5. The frequency ladder of a stretched rotary model (Proposition 28)

  var LADDER_SCHEMES = [
    { key: "default", name: "No scaling" },
    { key: "linear", name: "Position interpolation (linear)" },
    { key: "ntk", name: "NTK-aware, static" },
    { key: "dynamic", name: "Dynamic NTK, at s\u00b7L0" },
    { key: "yarn", name: "YaRN" },
    { key: "llama3", name: "Llama 3" },
  ];
  var LADDER_BASES = [10000, 500000, 1000000];
  var LADDER_LENGTHS = [2048, 4096, 8192, 32768];
  // The fixed parameters, as Hugging Face's defaults and Llama 3.1's config give them.
  var YARN_BETA_FAST = 32;
  var YARN_BETA_SLOW = 1;
  var LLAMA3_LOW = 1; // low_freq_factor: wavelengths above L0 / 1 are divided by s
  var LLAMA3_HIGH = 4; // high_freq_factor: wavelengths below L0 / 4 keep their speed

  /**
   * The speeds a scheme gives a rotary head of width d with base b, trained at L0 and
   * stretched by s, with the attention factor and, where the scheme has them, the band
   * of each pair ("unchanged", "blended", "divided"). The formulas are those of
   * posenc.rope (and of Hugging Face's ROPE_INIT_FUNCTIONS), in float64.
   */
  function ropeScheme(scheme, d, base, s, L0) {
    var pairs = d / 2;
    var before = frequencies(d, base);
    var after = before.slice();
    var bands = null;
    var attention = 1;
    var every = function (band) { return before.map(function () { return band; }); };
    if (scheme === "default") {
      bands = every("unchanged");
    } else if (scheme === "linear") {
      after = before.map(function (w) { return w / s; });
      bands = every("divided");
    } else if (scheme === "ntk") {
      after = frequencies(d, base * Math.pow(s, d / (d - 2)));
    } else if (scheme === "dynamic") {
      // The current length L = s L0: the base grows by (s L / L0 - (s - 1))^(d/(d-2)).
      var L = s * L0;
      after = frequencies(d, base * Math.pow((s * L) / L0 - (s - 1), d / (d - 2)));
    } else if (scheme === "yarn") {
      var correction = function (rotations) {
        return (d * Math.log(L0 / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
      };
      var low = Math.max(Math.floor(correction(YARN_BETA_FAST)), 0);
      var high = Math.min(Math.ceil(correction(YARN_BETA_SLOW)), d - 1);
      if (high === low) high += 0.001;
      bands = [];
      after = before.map(function (w, j) {
        var r = clamp((j - low) / (high - low), 0, 1); // 0: keep the speed, 1: divide it
        bands.push(r === 0 ? "unchanged" : r === 1 ? "divided" : "blended");
        return w * (1 - r) + (w / s) * r;
      });
      attention = s > 1 ? 0.1 * Math.log(s) + 1 : 1;
    } else if (scheme === "llama3") {
      bands = [];
      after = before.map(function (w) {
        var wave = (2 * Math.PI) / w;
        if (wave < L0 / LLAMA3_HIGH) { bands.push("unchanged"); return w; }
        if (wave > L0 / LLAMA3_LOW) { bands.push("divided"); return w / s; }
        bands.push("blended");
        var g = ((L0 * w) / (2 * Math.PI) - LLAMA3_LOW) / (LLAMA3_HIGH - LLAMA3_LOW);
        return ((1 - g) * w) / s + g * w;
      });
    } else {
      throw new Error("unknown rotary scheme " + JSON.stringify(scheme));
    }
    return { before: before, after: after, bands: bands, attention: attention, pairs: pairs };
  }

  /** How many of the wavelengths 2 pi / w are shorter than `length`. */
  function turnsWithin(speeds, length) {
    return speeds.filter(function (w) { return (2 * Math.PI) / w < length; }).length;
  }

  function selectControl(opts, onChange) {
    var id = uid(opts.name);
    var select = el("select", { id: id, class: "posenc-control__select", "aria-describedby": opts.describedBy });
    opts.options.forEach(function (option) {
      select.append(el("option", { value: String(option.value), text: option.text, selected: option.value === opts.value }));
    });
    select.addEventListener("change", function () { onChange(select.value); });
    var label = el("label", { for: id, class: "posenc-control__label", html: opts.label });
    return { wrap: el("div", { class: "posenc-control" }, [label, select]), select: select };
  }

  /** Whole numbers in groups of three digits, joined by a narrow no-break space: "32 768". */
  function grouped(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
  }

  var BAND_WORDS = { unchanged: "unchanged", blended: "blended", divided: "divided by s" };

  function initRopeLadder(root) {
    var desc = describedBy(root);
    var d = clamp(2 * Math.round(intAttr(root, "data-head-dim", 128) / 2), 4, 512);
    var MAX_S = 64;
    var known = LADDER_SCHEMES.map(function (x) { return x.key; });
    var state = {
      scheme: known.indexOf(root.getAttribute("data-scheme")) >= 0 ? root.getAttribute("data-scheme") : "llama3",
      factor: clamp(intAttr(root, "data-factor", 8), 1, MAX_S),
      base: LADDER_BASES.indexOf(intAttr(root, "data-base", 500000)) >= 0 ? intAttr(root, "data-base", 500000) : 500000,
      length: LADDER_LENGTHS.indexOf(intAttr(root, "data-length", 8192)) >= 0 ? intAttr(root, "data-length", 8192) : 8192,
    };
    var announcer = makeAnnouncer(500);

    var schemeCtl = selectControl({
      name: "scheme", label: "Scheme", describedBy: desc, value: state.scheme,
      options: LADDER_SCHEMES.map(function (x) { return { value: x.key, text: x.name }; }),
    }, function (value) { state.scheme = value; update(true); });
    var factorCtl = pairedControl({
      name: "factor", label: "Scale <var>s</var>", min: 1, max: MAX_S, value: state.factor,
      describedBy: desc, numberLabel: "Scale s, exact value",
    }, function (value) { state.factor = value; update(true); });
    var baseCtl = selectControl({
      name: "base", label: "Base <var>b</var>", describedBy: desc, value: state.base,
      options: LADDER_BASES.map(function (b) { return { value: b, text: grouped(b) }; }),
    }, function (value) { state.base = Number(value); update(true); });
    var lengthCtl = selectControl({
      name: "length", label: "Trained length <var>L</var><sub>0</sub>", describedBy: desc, value: state.length,
      options: LADDER_LENGTHS.map(function (n) { return { value: n, text: grouped(n) }; }),
    }, function (value) { state.length = Number(value); update(true); });

    var svg = svgEl("svg", { class: "posenc-ladder__plot", role: "img" });
    var svgTitle = svgEl("title", {});
    svg.append(svgTitle);
    var layer = svgEl("g", {});
    svg.append(layer);
    var legend = el("p", { class: "posenc-ladder__legend" }, [
      el("span", { class: "posenc-ladder__key posenc-ladder__key--before", "aria-hidden": "true" }),
      document.createTextNode(" before scaling, \u03bb\u1d62 = 2\u03c0/\u03b8\u1d62   "),
      el("span", { class: "posenc-ladder__key posenc-ladder__key--after", "aria-hidden": "true" }),
      document.createTextNode(" after, \u03bb\u2032\u1d62 = 2\u03c0/\u03b8\u2032\u1d62"),
    ]);

    var summaryCaption = el("caption");
    var cells = {};
    function summaryRow(key, heading) {
      cells[key] = [el("td", { class: "posenc-num" }), el("td", { class: "posenc-num" })];
      return el("tr", {}, [el("th", { scope: "row", text: heading }), cells[key][0], cells[key][1]]);
    }
    var withinL0 = el("th", { scope: "col", class: "posenc-right" });
    var withinSL0 = el("th", { scope: "col", class: "posenc-right" });
    var summary = el("table", { class: "posenc-table posenc-ladder__summary" }, [
      summaryCaption,
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "pairs that turn within" }), withinL0, withinSL0])]),
      el("tbody", {}, [summaryRow("before", "before scaling"), summaryRow("after", "after scaling")]),
    ]);
    var bandLine = el("p", { class: "posenc-ladder__bands" });
    var factorLine = el("p", { class: "posenc-ladder__attention" });

    var pairBody = el("tbody");
    var pairTable = el("table", { class: "posenc-table posenc-ladder__pairs" }, [
      el("caption", { text: "Every pair: wavelengths in positions, and the band" }),
      el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", class: "posenc-right", text: "pair i" }),
        el("th", { scope: "col", class: "posenc-right", text: "\u03bb\u1d62" }),
        el("th", { scope: "col", class: "posenc-right", text: "\u03bb\u2032\u1d62" }),
        el("th", { scope: "col", class: "posenc-right", text: "\u03bb\u2032\u1d62 / \u03bb\u1d62" }),
        el("th", { scope: "col", text: "band" }),
      ])]),
      pairBody,
    ]);
    var details = el("details", { class: "posenc-ladder__details" }, [
      el("summary", { text: "Every pair\u2019s numbers" }),
      el("div", { class: "posenc-scroll", role: "region", tabindex: "0", "aria-label": "Wavelengths of every pair" }, [pairTable]),
    ]);

    var live = el("div", { class: "posenc-widget__live" }, [
      el("div", { class: "posenc-widget__controls" }, [schemeCtl.wrap, factorCtl.wrap, baseCtl.wrap, lengthCtl.wrap]),
      el("div", { class: "posenc-ladder__figure" }, [svg, legend]),
      el("div", { class: "posenc-scroll" }, [summary]),
      bandLine,
      factorLine,
      details,
      announcer.region,
    ]);

    var current = null;

    function schemeName() {
      for (var k = 0; k < LADDER_SCHEMES.length; k++) if (LADDER_SCHEMES[k].key === state.scheme) return LADDER_SCHEMES[k].name;
      return state.scheme;
    }

    function bandCounts(bands) {
      var counts = { unchanged: 0, blended: 0, divided: 0 };
      (bands || []).forEach(function (band) { counts[band] += 1; });
      return counts;
    }

    function bandText(result, counts) {
      if (!result.bands) {
        var first = result.before[1] / result.after[1];
        var last = result.before[result.pairs - 1] / result.after[result.pairs - 1];
        return "No bands: the base grows, so pair i is divided by its own factor, from 1 for pair 0 and " +
          sig(first, 4) + " for pair 1 up to " + sig(last, 4) + " for pair " + (result.pairs - 1) + ".";
      }
      var parts = [];
      ["unchanged", "blended", "divided"].forEach(function (band) {
        if (counts[band]) parts.push(counts[band] + " " + (band === "divided" ? "divided by " + state.factor : band));
      });
      return "Bands: " + parts.join(", ") + " (of " + result.pairs + " pairs).";
    }

    function update(announce) {
      var s = state.factor;
      var L0 = state.length;
      var result = ropeScheme(state.scheme, d, state.base, s, L0);
      var counts = bandCounts(result.bands);
      var turns = {
        beforeL0: turnsWithin(result.before, L0),
        beforeSL0: turnsWithin(result.before, s * L0),
        afterL0: turnsWithin(result.after, L0),
        afterSL0: turnsWithin(result.after, s * L0),
      };
      current = { result: result, turns: turns };
      withinL0.textContent = "L0 = " + grouped(L0);
      withinSL0.textContent = "s\u00b7L0 = " + grouped(s * L0);
      summaryCaption.textContent = schemeName() + ", s = " + s + ", b = " + grouped(state.base) + ", d = " + d;
      cells.before[0].textContent = String(turns.beforeL0);
      cells.before[1].textContent = String(turns.beforeSL0);
      cells.after[0].textContent = String(turns.afterL0);
      cells.after[1].textContent = String(turns.afterSL0);
      bandLine.textContent = bandText(result, counts);
      factorLine.textContent = result.attention === 1
        ? "Attention factor 1: the logits are not rescaled."
        : "Attention factor " + sig(result.attention, 6) + " on the cosine and the sine: the logits are multiplied by its square, " +
          sig(result.attention * result.attention, 6) + ".";
      pairBody.textContent = "";
      result.before.forEach(function (w, i) {
        var wave = (2 * Math.PI) / w;
        var stretched = (2 * Math.PI) / result.after[i];
        pairBody.append(el("tr", {}, [
          el("th", { scope: "row", class: "posenc-num", text: String(i) }),
          el("td", { class: "posenc-num", text: sig(wave, 5) }),
          el("td", { class: "posenc-num", text: sig(stretched, 5) }),
          el("td", { class: "posenc-num", text: sig(stretched / wave, 4) }),
          el("td", { text: result.bands ? BAND_WORDS[result.bands[i]] : "own factor" }),
        ]));
      });
      draw();
      root.setAttribute("data-state", JSON.stringify({
        scheme: state.scheme,
        factor: s,
        base: state.base,
        length: L0,
        headDim: d,
        before: result.before,
        after: result.after,
        attention: result.attention,
        bands: result.bands,
        counts: result.bands ? counts : null,
        turns: turns,
      }));
      if (announce) {
        announcer.say(
          schemeName() + ", s = " + s + ", base " + state.base + ", L0 = " + L0 + ". " +
          (result.bands ? bandText(result, counts) + " " : "") +
          "Before scaling " + turns.beforeL0 + " of " + result.pairs + " pairs turn within L0; after it " +
          turns.afterL0 + " within L0 and " + turns.afterSL0 + " within s\u00b7L0."
        );
      }
    }

    function draw() {
      if (!current) return;
      var result = current.result;
      var s = state.factor;
      var L0 = state.length;
      var width = Math.max(240, live.clientWidth || root.clientWidth || 600);
      var height = 280;
      var m = { left: 44, right: 10, top: 22, bottom: 34 };
      var plotW = width - m.left - m.right;
      var plotH = height - m.top - m.bottom;
      setAttrs(svg, { width: width, height: height, viewBox: "0 0 " + width + " " + height });
      var waves = result.before.concat(result.after).map(function (w) { return (2 * Math.PI) / w; });
      waves.push(L0, s * L0);
      var lo = Math.floor(Math.log10(Math.min.apply(null, waves)));
      var hi = Math.ceil(Math.log10(Math.max.apply(null, waves)));
      if (hi === lo) hi += 1;
      var n = result.pairs;
      function x(i) { return m.left + ((i + 0.5) / n) * plotW; }
      function y(wave) { return m.top + (1 - (Math.log10(wave) - lo) / (hi - lo)) * plotH; }
      layer.textContent = "";
      // The bands: one shaded rectangle per run of pairs in the same band.
      if (result.bands) {
        var start = 0;
        for (var i = 1; i <= n; i++) {
          if (i < n && result.bands[i] === result.bands[start]) continue;
          var band = result.bands[start];
          var x0 = m.left + (start / n) * plotW;
          var x1 = m.left + (i / n) * plotW;
          layer.append(svgEl("rect", {
            x: x0, y: m.top, width: x1 - x0, height: plotH,
            class: "posenc-ladder__band posenc-ladder__band--" + band,
          }));
          var label = svgEl("text", {
            x: (x0 + x1) / 2, y: m.top - 6, "text-anchor": "middle", class: "posenc-ladder__band-label",
          });
          label.textContent = x1 - x0 > 46 ? BAND_WORDS[band].replace(" s", " " + s) : "";
          layer.append(label);
          start = i;
        }
      }
      // Decades on the wavelength axis.
      for (var k = lo; k <= hi; k++) {
        var yk = y(Math.pow(10, k));
        layer.append(svgEl("line", { x1: m.left, x2: m.left + plotW, y1: yk, y2: yk, class: "posenc-ladder__grid" }));
        var tick = svgEl("text", { x: m.left - 4, y: yk + 4, "text-anchor": "end", class: "posenc-ladder__tick" });
        tick.textContent = "10";
        var sup = svgEl("tspan", { dy: -5, "font-size": "0.75em" });
        sup.textContent = String(k);
        tick.append(sup);
        layer.append(tick);
      }
      // Pair ticks along the bottom.
      ticks(n, plotW).forEach(function (i) {
        var t = svgEl("text", { x: x(i), y: m.top + plotH + 14, "text-anchor": "middle", class: "posenc-ladder__tick" });
        t.textContent = String(i);
        layer.append(t);
      });
      var xLabel = svgEl("text", { x: m.left + plotW / 2, y: height - 4, "text-anchor": "middle", class: "posenc-ladder__tick" });
      xLabel.textContent = "pair i (fast to slow)";
      layer.append(xLabel);
      // The two lengths.
      [[L0, "L0"], [s * L0, "s\u00b7L0"]].forEach(function (line, index) {
        if (index === 1 && s === 1) return;
        var yl = y(line[0]);
        layer.append(svgEl("line", { x1: m.left, x2: m.left + plotW, y1: yl, y2: yl, class: "posenc-ladder__length" }));
        var t = svgEl("text", { x: m.left + 4, y: yl - 4, class: "posenc-ladder__length-label" });
        t.textContent = line[1] + " = " + grouped(line[0]);
        layer.append(t);
      });
      var r = Math.max(1.5, Math.min(3, plotW / n / 2.5));
      result.before.forEach(function (w, i) {
        layer.append(svgEl("circle", { cx: x(i), cy: y((2 * Math.PI) / w), r: r, class: "posenc-ladder__before" }));
      });
      result.after.forEach(function (w, i) {
        layer.append(svgEl("circle", { cx: x(i), cy: y((2 * Math.PI) / w), r: r * 0.8, class: "posenc-ladder__after" }));
      });
      svgTitle.textContent = "The wavelength of each of the " + n + " pairs on a log axis, before and after " + schemeName() +
        " with s = " + s + "; dashed lines at L0 and s\u00b7L0.";
    }

    watch(root, draw);
    update(false);
    return live;
  }

  // ------------------------------------------------------------------------
  // Start-up

  var BUILDERS = {
    "dog-bites-man": initDogBitesMan,
    heatmap: initHeatmap,
    "clock-bank": initClockBank,
    alibi: initAlibi,
    "rope-ladder": initRopeLadder,
  };

  function initAll() {
    var roots = document.querySelectorAll("[data-posenc-widget]");
    Array.prototype.forEach.call(roots, function (root) {
      if (root.classList.contains("posenc-widget--live") || root.hasAttribute("data-posenc-failed")) return;
      var kind = root.getAttribute("data-posenc-widget");
      var build = BUILDERS[kind];
      if (!build) {
        console.warn("posenc: unknown widget " + JSON.stringify(kind));
        return;
      }
      try {
        var live = build(root);
        root.append(live);
        root.classList.add("posenc-widget--live");
      } catch (err) {
        // Leave the static version in place and say what went wrong.
        root.setAttribute("data-posenc-failed", "");
        console.error("posenc: the " + kind + " widget could not start", err);
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initAll);
  else initAll();
  // Material for MkDocs with instant loading swaps pages without a new DOMContentLoaded.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(function () { initAll(); });
  }
})();
