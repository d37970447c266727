"""Frame sources on real files written here (images with cv2.imwrite, videos with cv2.VideoWriter).

The Raspberry Pi camera is the one piece of hardware this machine lacks: its tests inject a thin fake
``picamera2`` module into ``sys.modules`` that hands out arrays and records how it was configured.
"""

from __future__ import annotations

import functools
import http.server
import socketserver
import sys
import threading
import time
import types

import cv2
import numpy as np
import pytest

from vision.errors import CameraLost, VisionError
from vision.sources import (
    PICAMERA2_MISSING,
    CameraSource,
    Frame,
    ImageFileSource,
    ImageFolderSource,
    PiCameraSource,
    ReferencePatch,
    VideoFileSource,
    channel_order_check,
    open_source,
    swap_red_blue,
)


def numbered_image(k: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    """A BGR image that tells its number back: a grey level 20*k and a white bar k*4 pixels long."""
    width, height = size
    image = np.full((height, width, 3), 20 * k, np.uint8)
    image[2:6, 0 : 4 * k + 1] = 255
    return image


def number_of(image: np.ndarray) -> int:
    return int(round(float(np.median(image[20:40, 10:50])) / 20.0))


# ------------------------------------------------------------------------------------------------------------
# Folders and single images
# ------------------------------------------------------------------------------------------------------------
def test_folder_yields_images_in_natural_name_order(tmp_path):
    for k, name in [(3, "shot10.png"), (1, "shot2.jpg"), (2, "shot9.PNG"), (4, "shot11.jpeg")]:
        cv2.imwrite(str(tmp_path / name.replace(".PNG", ".png")), numbered_image(k))
    (tmp_path / "shot9.png").rename(tmp_path / "shot9.PNG")
    (tmp_path / "notes.txt").write_text("not an image")
    (tmp_path / "sub.png").mkdir()  # a folder named like an image is not one

    with ImageFolderSource(tmp_path, image_interval_s=0.5) as source:
        assert source.resolution == (64, 48)
        frames = list(source)
    assert [f.source.rsplit("/", 1)[-1] for f in frames] == ["shot2.jpg", "shot9.PNG", "shot10.png", "shot11.jpeg"]
    assert [number_of(f.image) for f in frames] == [1, 2, 3, 4]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.time_s for f in frames] == [0.0, 0.5, 1.0, 1.5]
    for frame in frames:
        assert frame.image.dtype == np.uint8 and frame.image.shape == (48, 64, 3)


def test_folder_skips_a_corrupt_image_with_a_warning(tmp_path):
    cv2.imwrite(str(tmp_path / "a1.png"), numbered_image(1))
    (tmp_path / "a2.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg" * 10)
    (tmp_path / "a3.png").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "a4.png"), numbered_image(4))
    warnings: list[str] = []
    source = ImageFolderSource(tmp_path, on_warning=warnings.append)
    frames = list(source)
    assert [number_of(f.image) for f in frames] == [1, 4]
    assert [f.index for f in frames] == [0, 1]
    assert [p.name for p in source.skipped] == ["a2.jpg", "a3.png"]
    assert len(warnings) == 2 and "a2.jpg" in warnings[0] and "\n" not in warnings[0]
    assert source.read() is None  # stays at the end


def test_folder_whose_first_images_are_corrupt_still_opens(tmp_path):
    (tmp_path / "0.png").write_bytes(b"garbage")
    cv2.imwrite(str(tmp_path / "1.png"), numbered_image(5, (40, 30)))
    warnings: list[str] = []
    source = ImageFolderSource(tmp_path, on_warning=warnings.append)
    assert source.resolution == (40, 30) and len(warnings) == 1
    frame = source.read()
    assert number_of(frame.image) == 5 and frame.index == 0
    assert source.read() is None


def test_empty_or_unreadable_folders_are_one_line_errors(tmp_path):
    with pytest.raises(VisionError, match="has no images") as info:
        ImageFolderSource(tmp_path)
    assert "\n" not in str(info.value)
    (tmp_path / "x.png").write_bytes(b"nope")
    with pytest.raises(VisionError, match="none of the 1 images"):
        ImageFolderSource(tmp_path, on_warning=lambda m: None)


def test_folder_keeps_grey_and_alpha_images_as_bgr(tmp_path):
    cv2.imwrite(str(tmp_path / "1.png"), np.full((10, 12), 77, np.uint8))
    cv2.imwrite(str(tmp_path / "2.png"), np.full((10, 12, 4), (10, 20, 30, 128), np.uint8))
    frames = list(ImageFolderSource(tmp_path))
    assert [f.image.shape for f in frames] == [(10, 12, 3), (10, 12, 3)]
    assert tuple(frames[0].image[0, 0]) == (77, 77, 77)
    assert tuple(frames[1].image[0, 0]) == (10, 20, 30)


def test_single_image_gives_one_frame(tmp_path):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), numbered_image(3))
    source = open_source(str(path))
    assert isinstance(source, ImageFileSource) and source.resolution == (64, 48) and not source.live
    frame = source.read()
    assert isinstance(frame, Frame) and frame.index == 0 and frame.source == str(path)
    assert np.array_equal(frame.image, numbered_image(3))  # PNG is lossless
    assert source.read() is None
    source.close()
    with pytest.raises(VisionError, match="closed"):
        source.read()


def test_corrupt_single_image_and_missing_paths(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\x00" * 100)
    with pytest.raises(VisionError, match="not a readable image"):
        open_source(str(bad))
    with pytest.raises(VisionError, match="no such file or folder") as info:
        open_source(str(tmp_path / "missing.mp4"))
    assert "\n" not in str(info.value)
    with pytest.raises(VisionError, match="empty --source"):
        open_source("  ")
    with pytest.raises(VisionError, match="does not exist"):
        VideoFileSource(tmp_path / "missing.avi")


# ------------------------------------------------------------------------------------------------------------
# Videos
# ------------------------------------------------------------------------------------------------------------
def write_video(path, fourcc: str, count: int, fps: float = 10.0, size=(64, 48), grain: int = 0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
    assert writer.isOpened(), f"this OpenCV build cannot write {fourcc}"
    rng = np.random.default_rng(7)
    for k in range(count):
        image = numbered_image(k, size).astype(np.int16)
        if grain:  # texture makes real-sized frames (a truncated tiny file loses its headers instead)
            image += rng.integers(-grain, grain + 1, image.shape, dtype=np.int16)
        writer.write(np.clip(image, 0, 255).astype(np.uint8))
    writer.release()


@pytest.mark.parametrize("name, fourcc", [("game.mp4", "mp4v"), ("game.avi", "MJPG")])
def test_video_read_back_with_timestamps(tmp_path, name, fourcc):
    path = tmp_path / name
    write_video(path, fourcc, count=6, fps=10.0)
    source = open_source(str(path))
    assert isinstance(source, VideoFileSource)
    assert source.resolution == (64, 48) and source.fps == pytest.approx(10.0) and source.frame_count == 6
    frames = list(source)
    source.close()
    assert [f.index for f in frames] == list(range(6))
    assert [number_of(f.image) for f in frames] == list(range(6))
    assert [f.time_s for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5], abs=1e-6)
    assert all(f.source == str(path) and f.image.dtype == np.uint8 for f in frames)


def test_video_that_cannot_be_decoded_is_a_one_line_error(tmp_path):
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"definitely not a video container" * 50)
    with pytest.raises(VisionError, match="cannot open video") as info:
        open_source(str(path))
    assert "\n" not in str(info.value) and "convert" in str(info.value)


def test_truncated_video_ends_early_with_a_warning(tmp_path):
    path = tmp_path / "cut.avi"
    write_video(path, "MJPG", count=12, size=(160, 120), grain=40)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # the recording was cut: the header still announces 12 frames
    warnings: list[str] = []
    source = VideoFileSource(path, on_warning=warnings.append)
    assert source.frame_count == 12
    frames = list(source)
    assert 2 < len(frames) < 12
    assert [number_of(f.image) for f in frames] == list(range(len(frames)))
    assert len(warnings) == 1 and f"after {len(frames)} of 12 frames" in warnings[0]
    assert source.read() is None and len(warnings) == 1  # warned once


# ------------------------------------------------------------------------------------------------------------
# OpenCV cameras (none on this machine: the failure paths are what can be tested)
# ------------------------------------------------------------------------------------------------------------
def test_camera_index_that_does_not_exist_fails_fast(capfd):
    started = time.monotonic()
    with pytest.raises(VisionError, match="cannot open camera 99") as info:
        open_source("99", timeout_s=2.0)
    elapsed = time.monotonic() - started
    assert elapsed < 10.0  # a bound on a failure path, not a speed target
    assert "\n" not in str(info.value) and "picamera" in str(info.value)
    assert "VIDEOIO" not in capfd.readouterr().err  # OpenCV's own warnings are silenced while probing


def test_camera_device_path_and_stream_are_live_sources():
    with pytest.raises(VisionError, match="cannot open camera /dev/video98"):
        open_source("/dev/video98", timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(VisionError, match="cannot open stream rtsp://127.0.0.1:9/table: check the address") as info:
        open_source("rtsp://127.0.0.1:9/table", timeout_s=1.0)  # nothing listens on the discard port
    assert time.monotonic() - started < 10.0 and "\n" not in str(info.value)
    assert CameraSource.live and PiCameraSource.live and not VideoFileSource.live


def test_a_live_stream_that_stops_is_lost_after_retries_and_can_be_reopened(tmp_path):
    """A real OpenCV network capture: a video served over HTTP on this machine. When it runs out, the live
    source retries, then raises CameraLost; reopen() starts it again and frame numbers go on."""
    write_video(tmp_path / "clip.avi", "MJPG", count=4)

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/clip.avi"
        source = open_source(url, read_retries=3, retry_delay_s=0.01, timeout_s=2.0)
        assert isinstance(source, CameraSource) and source.live and source.resolution == (64, 48)
        frames = [source.read() for _ in range(4)]
        assert [number_of(f.image) for f in frames] == [0, 1, 2, 3]
        assert all(b.time_s >= a.time_s for a, b in zip(frames, frames[1:], strict=False))
        with pytest.raises(CameraLost, match="3 reads failed") as info:
            source.read()
        assert "\n" not in str(info.value)
        source.reopen()
        again = source.read()
        assert again.index == 4 and number_of(again.image) == 0
        source.close()
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------------------------------------------------
# Raspberry Pi camera through an injected fake picamera2 (the one fake allowed: hardware this machine lacks)
# ------------------------------------------------------------------------------------------------------------
class FakePicamera2:
    """Records the calls tableside makes; ``capture_array`` returns planned arrays or raises planned errors."""

    instances: list[FakePicamera2] = []
    cameras = [{"Model": "imx708", "Num": 0, "Id": "/base/i2c@88000/imx708@1a"}]
    planned: list = []  # each item: an array to return or an exception to raise

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.calls: list[tuple] = [("init", camera_num)]
        self.config: dict | None = None
        type(self).instances.append(self)

    @classmethod
    def global_camera_info(cls) -> list[dict]:
        return list(cls.cameras)

    def create_video_configuration(self, main=None, **kw):
        self.calls.append(("create_video_configuration", dict(main)))
        return {"use_case": "video", "main": {"size": (640, 480), **dict(main)}}

    def create_still_configuration(self, main=None, **kw):
        self.calls.append(("create_still_configuration", dict(main)))
        return {"use_case": "still", "main": {"size": (2304, 1296), **dict(main)}}

    def configure(self, config):
        self.calls.append(("configure", config["use_case"]))
        self.config = config

    def start(self):
        self.calls.append(("start",))

    def capture_array(self, name="main"):
        self.calls.append(("capture_array", name))
        if type(self).planned:
            item = type(self).planned.pop(0)
            if isinstance(item, BaseException):
                raise item
            return item
        width, height = self.config["main"]["size"]
        # What picamera2's "RGB888" gives: pixels in B, G, R order. A red scene: R=200 is the LAST channel.
        frame = np.zeros((height, width, 3), np.uint8)
        frame[..., 2] = 200
        frame[..., 1] = 40
        frame[..., 0] = 30
        return frame

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def fake_picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    FakePicamera2.instances = []
    FakePicamera2.planned = []
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_picamera_is_configured_rgb888_at_the_requested_size(fake_picamera2):
    with open_source("picamera", resolution=(320, 240)) as source:
        assert isinstance(source, PiCameraSource) and source.live
        assert source.resolution == (320, 240)
        first, second = source.read(), source.read()
    camera = fake_picamera2.instances[0]
    assert camera.calls[:4] == [
        ("init", 0),
        ("create_video_configuration", {"format": "RGB888", "size": (320, 240)}),
        ("configure", "video"),
        ("start",),
    ]
    assert camera.calls[-2:] == [("stop",), ("close",)]
    assert [f.index for f in (first, second)] == [0, 1] and first.source == "picamera 0"
    assert second.time_s >= first.time_s >= 0.0
    # RGB888 is already BGR: the red scene stays red for OpenCV (red is channel 2), no conversion made.
    assert tuple(first.image[0, 0]) == (30, 40, 200)
    assert first.image.flags["C_CONTIGUOUS"]


def test_picamera_still_configuration_second_camera_and_swap(fake_picamera2):
    fake_picamera2.cameras = [{"Num": 0}, {"Num": 1}]
    try:
        source = PiCameraSource(camera_num=1, configuration="still", swap_red_blue=True)
    finally:
        fake_picamera2.cameras = FakePicamera2.cameras[:1]
    camera = fake_picamera2.instances[0]
    assert camera.calls[1] == ("create_still_configuration", {"format": "RGB888"})
    frame = source.read()
    assert tuple(frame.image[0, 0]) == (200, 40, 30)  # swapped on request
    assert source.resolution == (2304, 1296)
    source.close()


def test_picamera_xrgb_padding_is_dropped(fake_picamera2):
    padded = np.zeros((4, 6, 4), np.uint8)
    padded[..., 0], padded[..., 3] = 9, 255
    fake_picamera2.planned = [padded]
    source = PiCameraSource()
    assert source.read().image.shape == (4, 6, 3) and source.resolution == (6, 4)


def test_picamera_missing_camera_and_missing_module(fake_picamera2, monkeypatch):
    with pytest.raises(VisionError, match="no Raspberry Pi camera number 2"):
        open_source("picamera:2")
    with pytest.raises(VisionError, match="configuration must be"):
        PiCameraSource(configuration="preview")
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(VisionError) as info:
        open_source("picamera")
    assert str(info.value) == PICAMERA2_MISSING


def test_picamera_lost_after_retries_then_reopened(fake_picamera2):
    source = PiCameraSource(read_retries=3, retry_delay_s=0.0)
    source.read()
    fake_picamera2.planned = [RuntimeError("Camera frontend has timed out!\nDevice busy")] * 3
    with pytest.raises(CameraLost) as info:
        source.read()
    message = str(info.value)
    assert "3 captures failed" in message and "timed out" in message and "\n" not in message
    # A glitch that recovers within the retries is not a loss.
    fake_picamera2.planned = [RuntimeError("glitch"), None]
    assert source.read().index == 1
    source.reopen()
    assert len(fake_picamera2.instances) == 2 and fake_picamera2.instances[0].calls[-1] == ("close",)
    assert source.read().index == 2  # frame numbers go on across a reopen
    source.close()


def test_picamera_that_fails_to_start_is_a_one_line_error(fake_picamera2, monkeypatch):
    def broken_start(self):
        raise RuntimeError("Failed to acquire camera: Device or resource busy")

    monkeypatch.setattr(FakePicamera2, "start", broken_start)
    with pytest.raises(VisionError, match="cannot start picamera 0: Failed to acquire camera") as info:
        open_source("picamera")
    assert "\n" not in str(info.value)
    assert fake_picamera2.instances[0].calls[-1] == ("close",)


# ------------------------------------------------------------------------------------------------------------
# Channel order
# ------------------------------------------------------------------------------------------------------------
def card_image() -> np.ndarray:
    """A grey card with a red and a blue patch under warm, dim light (hues kept, levels not)."""
    image = np.full((60, 90, 3), (110, 118, 125), np.uint8)
    image[10:30, 10:40] = (40, 45, 150)  # a red suns piece, darker than its print colour
    image[10:30, 50:80] = (140, 70, 35)  # a blue arms piece
    noise = np.random.default_rng(1).normal(0, 4, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


REFERENCES = [
    ReferencePatch((12, 12, 26, 16), (60, 50, 220), "red"),
    ReferencePatch((52, 12, 26, 16), (200, 90, 40), "blue"),
]


def test_channel_order_check_says_right_or_swapped():
    image = card_image()
    right = channel_order_check(image, REFERENCES)
    assert right.swapped is False and right.patches_used == 2 and right.error_as_is < right.error_swapped
    wrong = channel_order_check(swap_red_blue(image), REFERENCES)
    assert wrong.swapped is True and "swapped" in wrong.message


def test_channel_order_check_abstains_without_a_coloured_reference():
    image = card_image()
    grey = [ReferencePatch((0, 40, 90, 20), (128, 128, 128))]
    report = channel_order_check(image, grey)
    assert report.swapped is None and report.patches_used == 0 and "red or blue" in report.message
    outside = [ReferencePatch((500, 500, 10, 10), (0, 0, 255))]
    assert channel_order_check(image, outside).swapped is None
    green = np.full((20, 20, 3), (40, 160, 40), np.uint8)  # a green patch read against a red expectation
    assert channel_order_check(green, [ReferencePatch((0, 0, 20, 20), (40, 40, 200))]).swapped is None
