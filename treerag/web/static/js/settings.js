// Run settings chosen on the page (top-k, depth, search mode, chat model when several are
// configured), kept in localStorage and sent as each run's `context`.
import { fetchJSON } from "./api.js";
import { $, clear, el } from "./dom.js";

const KEY = "treerag.runSettings";
const FALLBACK = { top_k: 5, max_depth: 2, search_modes: ["dense", "sparse", "hybrid"], search_mode: "hybrid", chat_models: [], chat_model: "" };

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch (_) {
    return {};
  }
}

export class RunSettings {
  constructor() {
    this.box = $("run-settings");
    this.summary = this.box.querySelector("summary");
    this.form = $("settings-form");
    this.defaults = FALLBACK;
    this.values = {};
  }

  async load() {
    try {
      this.defaults = { ...FALLBACK, ...(await fetchJSON("/ui/api/settings")) };
    } catch (_) {
      this.defaults = FALLBACK; // an older server: the page's own defaults
    }
    const saved = stored();
    const d = this.defaults;
    this.values = {
      top_k: Number.isInteger(saved.top_k) ? saved.top_k : d.top_k,
      max_depth: Number.isInteger(saved.max_depth) ? saved.max_depth : d.max_depth,
      search_mode: d.search_modes.includes(saved.search_mode) ? saved.search_mode : d.search_mode,
      chat_model: d.chat_models.includes(saved.chat_model) ? saved.chat_model : d.chat_model,
    };
    this.build();
  }

  build() {
    clear(this.form);
    const d = this.defaults;
    const number = (name, label, min, max) => {
      const input = el("input", { attrs: { type: "number", name, min, max, step: 1, id: `set-${name}` } });
      input.value = String(this.values[name]);
      return el("label", { attrs: { for: `set-${name}` } }, [document.createTextNode(label), input]);
    };
    const select = (name, label, options) => {
      const input = el("select", { attrs: { name, id: `set-${name}` } }, options.map((o) => el("option", { text: o, attrs: { value: o } })));
      input.value = this.values[name];
      return el("label", { attrs: { for: `set-${name}` } }, [document.createTextNode(label), input]);
    };
    this.form.appendChild(number("top_k", "top-k", 1, 50));
    this.form.appendChild(number("max_depth", "depth", 0, 5));
    this.form.appendChild(select("search_mode", "search", d.search_modes));
    if (d.chat_models.length > 1) this.form.appendChild(select("chat_model", "model", d.chat_models));
    const reset = el("button", { cls: "reset", text: "defaults", attrs: { type: "button" } });
    reset.addEventListener("click", () => {
      this.values = { top_k: d.top_k, max_depth: d.max_depth, search_mode: d.search_mode, chat_model: d.chat_model };
      this.save();
      this.build();
    });
    this.form.appendChild(reset);
    this.form.onchange = () => this.read();
    this.form.oninput = () => this.read();
    this.showSummary();
  }

  read() {
    for (const input of this.form.querySelectorAll("input, select")) {
      if (input.type === "number") {
        const n = Number.parseInt(input.value, 10);
        if (Number.isInteger(n) && n >= Number(input.min) && n <= Number(input.max)) this.values[input.name] = n;
      } else {
        this.values[input.name] = input.value;
      }
    }
    this.save();
    this.showSummary();
  }

  save() {
    try {
      localStorage.setItem(KEY, JSON.stringify(this.values));
    } catch (_) {
      // storage unavailable: the settings hold for this page
    }
  }

  showSummary() {
    const v = this.values;
    const parts = [`top-k ${v.top_k}`, `depth ${v.max_depth}`, v.search_mode];
    if (this.defaults.chat_models.length > 1 && v.chat_model) parts.push(v.chat_model);
    this.summary.textContent = `Settings: ${parts.join(" · ")}`;
  }

  // The run's `context`: only what the page lets a person choose.
  context() {
    const v = this.values;
    const context = { top_k: v.top_k, max_depth: v.max_depth, search_mode: v.search_mode };
    if (this.defaults.chat_models.length > 1 && v.chat_model) context.chat_model = v.chat_model;
    return context;
  }
}
