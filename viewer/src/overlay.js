// SPDX-License-Identifier: Apache-2.0
// Debug overlay (#overlay): agents per level of detail, vehicles, pedestrians, simulation ticks
// per second (from the stream or the recording's ticks), rendered frames per second.

const IDS = {
  vehicles: 'count-vehicles',
  pedestrians: 'count-pedestrians',
  high: 'count-lod-high',
  medium: 'count-lod-medium',
  low: 'count-lod-low',
  off: 'count-lod-off',
  ticks: 'ticks-per-s',
  fps: 'fps',
};

export class Overlay {
  constructor() {
    this.el = {};
    for (const [k, id] of Object.entries(IDS)) this.el[k] = document.getElementById(id);
    this.extra = document.getElementById('overlay-extra');
    this.last = 0;
  }

  /// Refreshes the text at most 4 times a second (DOM writes are not free).
  update(stats, now) {
    if (now - this.last < 250) return;
    this.last = now;
    const set = (k, v) => {
      if (this.el[k]) this.el[k].textContent = v;
    };
    set('vehicles', stats.vehicles);
    set('pedestrians', stats.pedestrians);
    set('high', stats.per_lod.high);
    set('medium', stats.per_lod.medium);
    set('low', stats.per_lod.low);
    set('off', stats.per_lod.off);
    set('ticks', stats.ticks_per_s.toFixed(1));
    set('fps', stats.fps.toFixed(1));
    if (this.extra) {
      this.extra.textContent =
        `${stats.mode} · ${stats.time_of_day_h.toFixed(2)} h · ${stats.weather}${stats.fog ? '+fog' : ''}` +
        ` · chunks ${stats.chunks_visible}/${stats.chunks_total}`;
    }
  }
}
