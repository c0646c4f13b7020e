// SPDX-License-Identifier: Apache-2.0
// Options panel mirroring the source's menu (seeds/004, "Main Menu Possible Configurations"):
// time of day and day length, weather and its change probability, pedestrian and vehicle
// density, render options, camera mode, drive mode and metric export. `app` carries the
// actions (main.js); the panel also shows state set elsewhere (clock, server env).

const $ = (id) => document.getElementById(id);

export class Panel {
  constructor(app) {
    this.app = app;
    this.time = $('time-slider');
    this.dayLength = $('day-length');
    this.weather = $('weather-select');
    this.fog = $('fog-toggle');
    this.changeProb = $('weather-change-prob');
    this.ped = $('ped-density');
    this.veh = $('veh-density');
    this.cameraMode = $('camera-mode');
    this.drive = $('drive-toggle');
    this.draggingTime = false;

    this.time.addEventListener('pointerdown', () => (this.draggingTime = true));
    window.addEventListener('pointerup', () => (this.draggingTime = false));
    this.time.addEventListener('input', () => app.setTime(Number(this.time.value), { send: true }));
    this.dayLength.addEventListener('change', () => app.setDayLength(Number(this.dayLength.value), { send: true }));
    const weather = () => app.setWeather(this.weather.value, this.fog.checked);
    this.weather.addEventListener('change', weather);
    this.fog.addEventListener('change', weather);
    this.changeProb.addEventListener('input', () => app.setChangeProbability(Number(this.changeProb.value)));
    let densityTimer = null;
    const density = () => {
      clearTimeout(densityTimer);
      densityTimer = setTimeout(() => app.setDensity(Number(this.ped.value), Number(this.veh.value)), 150);
    };
    this.ped.addEventListener('input', density);
    this.veh.addEventListener('input', density);
    for (const what of ['buildings', 'props', 'agents', 'lights', 'lod-colours', 'signals']) {
      const el = $(`show-${what}`);
      el.addEventListener('change', () => app.setShow(what, el.checked));
    }
    this.cameraMode.addEventListener('change', () => app.setCameraMode(this.cameraMode.value));
    this.drive.addEventListener('change', () => app.setDrive(this.drive.checked));
    // A select keeps the keyboard focus after a choice, and WASD / arrows would then pick its
    // options instead of flying or driving: hand the focus back to the page.
    for (const el of document.querySelectorAll('#panel select, #panel input[type=checkbox]')) {
      el.addEventListener('change', () => el.blur());
    }
    // The drive module would wire these itself; marked so it leaves them to the panel.
    for (const [id, kind] of [['export-csv', 'csv'], ['export-json', 'json']]) {
      $(id).dataset.driveWired = '1';
      $(id).addEventListener('click', () => app.exportMetrics(kind));
    }
  }

  /// Shows state that changed elsewhere (clock running, server env, weather draws).
  reflect({ hour, dayLength_s, weather, fog, changeProb, pedestrians, vehicles, cameraMode, driving }) {
    if (hour !== undefined && !this.draggingTime && document.activeElement !== this.time) {
      this.time.value = hour.toFixed(2);
    }
    if (dayLength_s !== undefined && document.activeElement !== this.dayLength) this.dayLength.value = Math.round(dayLength_s);
    if (weather !== undefined) this.weather.value = weather;
    if (fog !== undefined) this.fog.checked = fog;
    if (changeProb !== undefined) this.changeProb.value = changeProb;
    if (pedestrians !== undefined && document.activeElement !== this.ped) this.ped.value = pedestrians;
    if (vehicles !== undefined && document.activeElement !== this.veh) this.veh.value = vehicles;
    if (cameraMode !== undefined) this.cameraMode.value = cameraMode;
    if (driving !== undefined) this.drive.checked = driving;
  }
}
