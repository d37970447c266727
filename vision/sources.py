"""Where frames come from: one small protocol over cameras, video files, folders of images and single images.

``open_source(spec)`` turns the text of a ``--source`` option into a :class:`FrameSource`:

=====================  ==============================================================================
``picamera``           the Raspberry Pi camera through picamera2 (``picamera:1`` for the second one)
``0``, ``1`` ...       an OpenCV camera by index (USB webcam, ``/dev/video0`` ...); also ``/dev/videoN``
``rtsp://...`` etc.    a network stream OpenCV can open (treated like a live camera)
``game.mp4``           a video file (whatever this OpenCV build decodes: MP4 'mp4v'/H.264, MJPG AVI ...)
``shots/``             a folder of images (jpg, jpeg, png, bmp, tif, tiff, webp) in natural name order
``table.jpg``          a single image (one frame)
=====================  ==============================================================================

Every source yields :class:`Frame` objects (BGR ``uint8`` images, as OpenCV uses): ``read()`` returns the
next frame or ``None`` at the end of a file or folder; a source is iterable, a context manager, and knows its
``resolution`` (width, height of its first frame). Live sources (cameras, streams) never end: a failed read
is retried a few times, then :class:`~vision.errors.CameraLost` is raised and the caller may ``reopen()``.

Frame times (``Frame.time_s``) are source time in seconds: the timestamp in a video file, the capture clock
(``time.monotonic()`` since the source was opened) for a camera, and ``index * image_interval_s`` for
folders and single images (they carry no time of their own).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import CameraLost, VisionError

__all__ = [
    "IMAGE_SUFFIXES",
    "Frame",
    "FrameSource",
    "ImageFileSource",
    "ImageFolderSource",
    "VideoFileSource",
    "CameraSource",
    "PiCameraSource",
    "open_source",
    "read_image",
    "swap_red_blue",
    "ReferencePatch",
    "ChannelOrderReport",
    "channel_order_check",
    "PICAMERA2_MISSING",
]

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

PICAMERA2_MISSING = (
    "picamera2 is not installed: on a Raspberry Pi run sudo apt-get install python3-picamera2 "
    "and create the venv with --system-site-packages"
)

WarningCallback = Callable[[str], None]


def _log_warning(message: str) -> None:
    logger.warning("%s", message)


@dataclass(frozen=True, eq=False)  # frames compare by identity: their images are arrays
class Frame:
    """One picture from a source.

    ``image`` is BGR ``uint8`` of shape (height, width, 3); ``index`` counts the frames this source delivered
    (0, 1, 2 ... with no gaps, also across a camera ``reopen()``); ``time_s`` is source time in seconds (see
    the module docstring); ``source`` names where the picture came from: the image file for folders and
    single images, the video path for videos, ``camera 0`` / ``picamera 0`` for cameras.
    """

    image: np.ndarray
    index: int
    time_s: float
    source: str

    @property
    def resolution(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class FrameSource:
    """Base class of all sources: ``read()``, iteration, ``close()``, context manager, ``resolution``.

    Subclasses implement ``_next()`` (the next BGR image and its time, or ``None`` at the end) and, for live
    sources, ``_open()``/``_release()`` so that ``reopen()`` works.
    """

    #: True for cameras and streams: they never end, failed reads are retried, ``reopen()`` makes sense.
    live: bool = False

    def __init__(self, name: str) -> None:
        self.name = name
        self._count = 0
        self._closed = False
        self._resolution: tuple[int, int] | None = None

    # --- protocol -------------------------------------------------------------------------------------------
    @property
    def resolution(self) -> tuple[int, int]:
        """(width, height) in pixels of the frames (of the first frame for folders of mixed sizes)."""
        assert self._resolution is not None  # every subclass reads its first frame when opened
        return self._resolution

    @property
    def frames_read(self) -> int:
        """How many frames ``read()`` has returned so far."""
        return self._count

    def read(self) -> Frame | None:
        """The next frame, or ``None`` at the end of a file or folder (never ``None`` for a live source)."""
        if self._closed:
            raise VisionError(f"{self.name} is closed: open the source again")
        got = self._next()
        if got is None:
            return None
        image, time_s, origin = got
        frame = Frame(image=image, index=self._count, time_s=float(time_s), source=origin)
        self._count += 1
        return frame

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    def close(self) -> None:
        """Release the file or device. Closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self._release()

    def reopen(self) -> None:
        """Close and open the device again (after :class:`CameraLost`); raises VisionError if it stays gone."""
        self._release()
        self._closed = False
        self._open()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self._resolution}>"

    # --- for subclasses -------------------------------------------------------------------------------------
    def _next(self) -> tuple[np.ndarray, float, str] | None:
        raise NotImplementedError

    def _open(self) -> None:
        raise VisionError(f"{self.name} cannot be reopened")

    def _release(self) -> None:
        pass


# ------------------------------------------------------------------------------------------------------------
# Images
# ------------------------------------------------------------------------------------------------------------
def read_image(path: str | Path) -> np.ndarray | None:
    """Decode an image file to BGR ``uint8``; ``None`` if the bytes are not a readable image.

    Reads the bytes with numpy and decodes them with ``cv2.imdecode`` (not ``cv2.imread``) so that any path
    works and an unreadable file is told apart from a missing one (``OSError`` is raised for that).
    Grey and 16-bit images are converted to 8-bit BGR; an alpha channel is dropped.
    """
    data = np.fromfile(str(path), dtype=np.uint8)
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        return None
    return image


def _natural_key(path: Path) -> list:
    # "img2" before "img10": numbered shots are rarely zero-padded by phones and timelapse tools.
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class ImageFileSource(FrameSource):
    """A single image: one frame, then ``None``."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        super().__init__(str(path))
        self.path = path
        try:
            image = read_image(path)
        except OSError as exc:
            raise VisionError(f"cannot read image {path}: {exc.strerror or exc}") from None
        if image is None:
            raise VisionError(f"{path} is not a readable image: give a JPEG or PNG photo of the table")
        self._image: np.ndarray | None = image
        self._resolution = (image.shape[1], image.shape[0])

    def _next(self) -> tuple[np.ndarray, float, str] | None:
        image, self._image = self._image, None
        return None if image is None else (image, 0.0, str(self.path))

    def _release(self) -> None:
        self._image = None


class ImageFolderSource(FrameSource):
    """The images of a folder in natural name order (``2.png`` before ``10.png``), one frame each.

    Unreadable files are skipped: ``on_warning`` gets a one-line message for each and ``skipped`` lists them.
    ``image_interval_s`` is the time between two images (``Frame.time_s = index * image_interval_s``).
    """

    def __init__(
        self,
        folder: str | Path,
        image_interval_s: float = 1.0,
        on_warning: WarningCallback | None = None,
    ) -> None:
        folder = Path(folder)
        super().__init__(str(folder))
        self.folder = folder
        self.image_interval_s = float(image_interval_s)
        self.on_warning = on_warning or _log_warning
        self.skipped: list[Path] = []
        try:
            entries = [p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]
        except OSError as exc:
            raise VisionError(f"cannot list folder {folder}: {exc.strerror or exc}") from None
        self.paths: list[Path] = sorted(entries, key=_natural_key)
        if not self.paths:
            raise VisionError(
                f"folder {folder} has no images ({', '.join(s[1:] for s in IMAGE_SUFFIXES)}): "
                "put the photos of the table there or give another --source"
            )
        self._position = 0
        self._pending: tuple[np.ndarray, Path] | None = self._next_readable()
        if self._pending is None:
            raise VisionError(f"none of the {len(self.paths)} images in {folder} is readable: check the files")
        image = self._pending[0]
        self._resolution = (image.shape[1], image.shape[0])

    def _next_readable(self) -> tuple[np.ndarray, Path] | None:
        while self._position < len(self.paths):
            path = self.paths[self._position]
            self._position += 1
            try:
                image = read_image(path)
                problem = "not a readable image"
            except OSError as exc:
                image, problem = None, str(exc.strerror or exc)
            if image is not None:
                return image, path
            self.skipped.append(path)
            self.on_warning(f"skipped {path}: {problem}")
        return None

    def _next(self) -> tuple[np.ndarray, float, str] | None:
        got, self._pending = (self._pending, None) if self._pending is not None else (self._next_readable(), None)
        if got is None:
            return None
        image, path = got
        return image, self._count * self.image_interval_s, str(path)

    def _release(self) -> None:
        self._pending = None
        self._position = len(self.paths)


# ------------------------------------------------------------------------------------------------------------
# OpenCV video files and cameras
# ------------------------------------------------------------------------------------------------------------
class _QuietOpenCV:
    """Silence OpenCV's log while probing a device: a missing camera makes every backend print warnings.

    The previous level is restored on exit, so no global state is left changed.
    """

    def __enter__(self) -> None:
        self._level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)

    def __exit__(self, *exc: object) -> None:
        cv2.utils.logging.setLogLevel(self._level)


class VideoFileSource(FrameSource):
    """A video file read with ``cv2.VideoCapture``; ``Frame.time_s`` is the frame's timestamp in the file.

    A video that stops decoding before its announced frame count ends there, with a warning.
    """

    def __init__(self, path: str | Path, on_warning: WarningCallback | None = None) -> None:
        path = Path(path)
        super().__init__(str(path))
        self.path = path
        self.on_warning = on_warning or _log_warning
        if not path.is_file():
            raise VisionError(f"video {path} does not exist: check the path given to --source")
        with _QuietOpenCV():
            capture = cv2.VideoCapture(str(path))
        if not capture.isOpened():
            raise VisionError(
                f"cannot open video {path}: OpenCV here has no decoder for it or the file is damaged; "
                "convert it to MP4 or MJPG AVI (e.g. ffmpeg -i IN -c:v mjpeg OUT.avi)"
            )
        self._capture = capture
        fps = capture.get(cv2.CAP_PROP_FPS)
        self.fps: float | None = float(fps) if np.isfinite(fps) and fps > 0 else None
        count = capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count: int | None = int(count) if np.isfinite(count) and count > 0 else None
        self._pending = self._grab()
        if self._pending is None:
            capture.release()
            raise VisionError(f"video {path} has no readable frames: check the file plays, or record it again")
        self._resolution = (self._pending[0].shape[1], self._pending[0].shape[0])

    def _grab(self) -> tuple[np.ndarray, float] | None:
        ok, image = self._capture.read()
        if not ok or image is None:
            return None
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        msec = self._capture.get(cv2.CAP_PROP_POS_MSEC)
        index = self._count
        if np.isfinite(msec) and (msec > 0 or index == 0):
            time_s = msec / 1000.0
        else:  # some containers give no timestamps: fall back on the nominal frame rate
            time_s = index / self.fps if self.fps else float(index)
        return image, time_s

    def _next(self) -> tuple[np.ndarray, float, str] | None:
        got, self._pending = (self._pending, None) if self._pending is not None else (self._grab(), None)
        if got is None:
            if self.frame_count is not None and self._count < self.frame_count - 1:
                self.on_warning(
                    f"video {self.path} stopped decoding after {self._count} of {self.frame_count} frames"
                )
                self.frame_count = None  # warn once
            return None
        return got[0], got[1], str(self.path)

    def _release(self) -> None:
        self._pending = None
        self._capture.release()


class CameraSource(FrameSource):
    """A live OpenCV camera (index or ``/dev/videoN``) or network stream; it never ends.

    ``resolution`` asks the driver for a frame size (it may pick the nearest it has; the actual size is the
    first frame's). A failed read is retried ``read_retries`` times, ``retry_delay_s`` apart; then
    :class:`CameraLost` is raised and ``reopen()`` may be tried. ``timeout_s`` bounds opening and each read of
    a network stream (FFmpeg); a local camera is opened without it (V4L2 bounds its own reads).
    """

    live = True

    def __init__(
        self,
        device: int | str,
        resolution: tuple[int, int] | None = None,
        read_retries: int = 5,
        retry_delay_s: float = 0.1,
        timeout_s: float = 5.0,
    ) -> None:
        super().__init__(f"stream {device}" if isinstance(device, str) and "://" in device else f"camera {device}")
        self.device = device
        self.requested_resolution = resolution
        self.read_retries = max(1, int(read_retries))
        self.retry_delay_s = float(retry_delay_s)
        self.timeout_s = float(timeout_s)
        self.is_stream = isinstance(device, str) and "://" in device
        self._capture: cv2.VideoCapture | None = None
        self._clock_zero = time.monotonic()
        self._open()

    def _open(self) -> None:
        with _QuietOpenCV():
            if self.is_stream:
                # FFmpeg honours open/read timeouts for streams; backends that do not know a parameter refuse
                # to open with it (opencv/opencv#23573), so local cameras are opened without (V4L2 fails fast
                # on a missing device and bounds its reads itself)
                ms = int(self.timeout_s * 1000)
                params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
                capture = cv2.VideoCapture(self.device, cv2.CAP_ANY, params)
                if not capture.isOpened():
                    capture = cv2.VideoCapture(self.device)
            else:
                capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            if self.is_stream:
                raise VisionError(f"cannot open {self.name}: check the address and that the camera is on the network")
            raise VisionError(
                f"cannot open {self.name}: no such device or it is busy; check a camera is connected and not used "
                "by another program, try another index, or use --source picamera for the Raspberry Pi camera"
            )
        if self.requested_resolution is not None:
            width, height = self.requested_resolution
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, float(width))
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, float(height))
        self._capture = capture
        try:
            image = self._read_with_retries()
        except CameraLost:
            capture.release()
            self._capture = None
            raise VisionError(
                f"{self.name} opened but delivers no frames: check the camera is not used by another program"
            ) from None
        self._pending: np.ndarray | None = image
        self._pending_time = time.monotonic() - self._clock_zero
        self._resolution = (image.shape[1], image.shape[0])

    def _read_with_retries(self) -> np.ndarray:
        assert self._capture is not None
        for attempt in range(self.read_retries):
            ok, image = self._capture.read()
            if ok and image is not None and image.size:
                if image.ndim == 2:
                    image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
                return image
            if attempt + 1 < self.read_retries:
                time.sleep(self.retry_delay_s)
        raise CameraLost(
            f"{self.name} stopped delivering frames ({self.read_retries} reads failed): "
            "check its cable or connection; the source can be reopened"
        )

    def _next(self) -> tuple[np.ndarray, float, str] | None:
        if self._capture is None:
            raise CameraLost(f"{self.name} is not open: reopen the source")
        if self._pending is not None:
            image, time_s, self._pending = self._pending, self._pending_time, None
            return image, time_s, self.name
        image = self._read_with_retries()
        return image, time.monotonic() - self._clock_zero, self.name

    def _release(self) -> None:
        self._pending = None
        if self._capture is not None:
            self._capture.release()
            self._capture = None


# ------------------------------------------------------------------------------------------------------------
# Raspberry Pi camera (picamera2): a thin adapter, the one piece of hardware tests fake
# ------------------------------------------------------------------------------------------------------------
def _import_picamera2() -> Any:
    try:
        import picamera2  # only on a Raspberry Pi: imported when asked for
    except ImportError:
        raise VisionError(PICAMERA2_MISSING) from None
    return picamera2


def swap_red_blue(image: np.ndarray) -> np.ndarray:
    """The image with its first and third channels exchanged (RGB <-> BGR), as a new contiguous array."""
    return np.ascontiguousarray(image[..., 2::-1]) if image.shape[-1] == 3 else image.copy()


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2, in OpenCV's BGR order.

    picamera2 follows libcamera/DRM naming, where the format "RGB888" delivers each pixel as [B, G, R]
    (little-endian naming), i.e. exactly OpenCV's BGR, and "BGR888" delivers [R, G, B]. So the stream is
    configured as ``{"format": "RGB888", "size": resolution}`` and used as it is. Some camera/pipeline
    combinations have been reported to swap red and blue anyway: check once with :func:`channel_order_check`
    and pass ``swap_red_blue=True`` if it says so.

    ``configuration`` is ``"video"`` (continuous streaming, the live loop) or ``"still"`` (full-resolution
    stills, slower). picamera2 may adjust the size; ``resolution`` is the size of the frames actually captured.
    """

    live = True

    def __init__(
        self,
        camera_num: int = 0,
        resolution: tuple[int, int] | None = None,
        configuration: str = "video",
        swap_red_blue: bool = False,
        read_retries: int = 5,
        retry_delay_s: float = 0.1,
    ) -> None:
        if configuration not in ("video", "still"):
            raise VisionError(f"picamera configuration must be 'video' or 'still', not {configuration!r}")
        super().__init__(f"picamera {camera_num}")
        self._picamera2 = _import_picamera2()
        self.camera_num = int(camera_num)
        self.requested_resolution = resolution
        self.configuration = configuration
        self.swap_red_blue = bool(swap_red_blue)
        self.read_retries = max(1, int(read_retries))
        self.retry_delay_s = float(retry_delay_s)
        self._camera: Any = None
        self._clock_zero = time.monotonic()
        self._open()

    def _open(self) -> None:
        picamera_class = self._picamera2.Picamera2
        try:
            cameras = list(picamera_class.global_camera_info())
        except Exception:  # older picamera2 without it: let Picamera2() say what is wrong
            cameras = None
        if cameras is not None and self.camera_num >= len(cameras):
            raise VisionError(
                f"no Raspberry Pi camera number {self.camera_num} (picamera2 sees {len(cameras)}): check the "
                "ribbon cable and that rpicam-hello --list-cameras lists it"
            )
        main: dict[str, Any] = {"format": "RGB888"}
        if self.requested_resolution is not None:
            main["size"] = (int(self.requested_resolution[0]), int(self.requested_resolution[1]))
        camera = None
        try:
            camera = picamera_class(self.camera_num)
            if self.configuration == "video":
                config = camera.create_video_configuration(main=main)
            else:
                config = camera.create_still_configuration(main=main)
            camera.configure(config)
            camera.start()
        except Exception as exc:  # libcamera raises RuntimeError, IndexError, OSError ...
            if camera is not None:
                _close_quietly(camera)
            raise VisionError(
                f"cannot start {self.name}: {_one_line(exc)}; check no other program uses the camera"
            ) from None
        self._camera = camera
        try:
            image = self._capture_with_retries()
        except CameraLost:
            self._release()
            raise VisionError(f"{self.name} started but delivers no frames: check the ribbon cable") from None
        self._pending: np.ndarray | None = image
        self._pending_time = time.monotonic() - self._clock_zero
        self._resolution = (image.shape[1], image.shape[0])

    def _capture_with_retries(self) -> np.ndarray:
        problem = "no picture"
        for attempt in range(self.read_retries):
            try:
                array = self._camera.capture_array("main")
            except Exception as exc:  # any capture failure counts as a failed read
                array, problem = None, _one_line(exc)
            if array is not None:
                image = self._to_bgr(array)
                if image is not None:
                    return image
                problem = f"unexpected array shape {getattr(array, 'shape', None)}"
            if attempt + 1 < self.read_retries:
                time.sleep(self.retry_delay_s)
        raise CameraLost(
            f"{self.name} stopped delivering frames ({self.read_retries} captures failed: {problem}): "
            "check the ribbon cable; the source can be reopened"
        )

    def _to_bgr(self, array: Any) -> np.ndarray | None:
        array = np.asarray(array)
        if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] not in (3, 4):
            return None
        image = array[..., :3]  # XRGB8888 gives [B, G, R, 255]: drop the padding byte
        if self.swap_red_blue:
            return swap_red_blue(image)
        return np.ascontiguousarray(image)

    def _next(self) -> tuple[np.ndarray, float, str] | None:
        if self._camera is None:
            raise CameraLost(f"{self.name} is not open: reopen the source")
        if self._pending is not None:
            image, time_s, self._pending = self._pending, self._pending_time, None
            return image, time_s, self.name
        image = self._capture_with_retries()
        return image, time.monotonic() - self._clock_zero, self.name

    def _release(self) -> None:
        self._pending = None
        if self._camera is not None:
            _close_quietly(self._camera)
            self._camera = None


def _close_quietly(camera: Any) -> None:
    for method in ("stop", "close"):
        try:
            getattr(camera, method)()
        except Exception:  # closing a lost camera may fail; nothing more to do
            pass


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


# ------------------------------------------------------------------------------------------------------------
# Choosing a source from text
# ------------------------------------------------------------------------------------------------------------
_PICAMERA = re.compile(r"^picamera(?::(\d+))?$", re.IGNORECASE)


def open_source(
    spec: str,
    *,
    resolution: tuple[int, int] | None = None,
    image_interval_s: float = 1.0,
    on_warning: WarningCallback | None = None,
    read_retries: int = 5,
    retry_delay_s: float = 0.1,
    timeout_s: float = 5.0,
    swap_red_blue: bool = False,
) -> FrameSource:
    """Open what ``spec`` names (see the module docstring); raises VisionError with a one-line message.

    ``resolution`` (width, height) is requested from cameras and ignored by files. ``swap_red_blue`` applies to
    the Raspberry Pi camera only. ``on_warning`` receives one-line messages about skipped images and videos
    that end early (default: the ``vision.sources`` logger).
    """
    text = str(spec).strip()
    if not text:
        raise VisionError("empty --source: give picamera, a camera index, a video file, a folder or an image")
    match = _PICAMERA.match(text)
    if match:
        return PiCameraSource(
            camera_num=int(match.group(1) or 0),
            resolution=resolution,
            swap_red_blue=swap_red_blue,
            read_retries=read_retries,
            retry_delay_s=retry_delay_s,
        )
    if text.isdigit():
        return CameraSource(int(text), resolution, read_retries, retry_delay_s, timeout_s)
    if "://" in text or re.match(r"^/dev/video\d+$", text):
        return CameraSource(text, resolution, read_retries, retry_delay_s, timeout_s)
    path = Path(text).expanduser()
    if path.is_dir():
        return ImageFolderSource(path, image_interval_s=image_interval_s, on_warning=on_warning)
    if not path.exists():
        raise VisionError(
            f"--source {text}: no such file or folder; give picamera, a camera index (0), a video, "
            "a folder of images or an image"
        )
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFileSource(path)
    return VideoFileSource(path, on_warning=on_warning)


# ------------------------------------------------------------------------------------------------------------
# Channel order check
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReferencePatch:
    """A region of the frame whose true colour is known, e.g. a red suns coin or a blue arms tile.

    ``box`` is (x, y, width, height) in pixels of the frame; ``expected_bgr`` the colour it should have,
    as B, G, R in 0..255 (only its hue matters: brightness and white balance may differ).
    """

    box: tuple[int, int, int, int]
    expected_bgr: tuple[float, float, float]
    name: str = "reference"


@dataclass(frozen=True)
class ChannelOrderReport:
    """Verdict of :func:`channel_order_check`.

    ``swapped`` is True (red and blue look exchanged), False (the order looks right) or None (cannot tell:
    the references are neutral, too small, or the colours too far from either reading). ``error_as_is`` and
    ``error_swapped`` are mean chromaticity errors (sum of |r,g,b shares| differences, 0..2) of the two
    readings over the informative patches.
    """

    swapped: bool | None
    error_as_is: float
    error_swapped: float
    patches_used: int
    message: str


def _chromaticity(bgr: np.ndarray) -> np.ndarray:
    bgr = np.asarray(bgr, dtype=np.float64)
    return bgr / max(float(bgr.sum()), 1e-6)


def channel_order_check(
    image: np.ndarray,
    references: Sequence[ReferencePatch],
    decisive_ratio: float = 0.5,
    min_red_blue_difference: float = 0.12,
) -> ChannelOrderReport:
    """Check once whether a frame's red and blue channels look swapped, against patches of known colour.

    For each patch the median colour is compared with the expected colour as chromaticity (each channel's
    share of the sum, so brightness does not matter), once as read and once with red and blue exchanged. Only
    patches whose expected red and blue shares differ by at least ``min_red_blue_difference`` tell anything
    (swapping does not change a grey). The reading whose mean error is below ``decisive_ratio`` times the
    other's wins; otherwise the verdict is None.
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise VisionError("channel_order_check needs a colour (BGR) image")
    height, width = image.shape[:2]
    errors_as_is: list[float] = []
    errors_swapped: list[float] = []
    for patch in references:
        expected = _chromaticity(np.asarray(patch.expected_bgr))
        if abs(expected[0] - expected[2]) < min_red_blue_difference:
            continue
        x, y, w, h = (int(v) for v in patch.box)
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        measured = np.median(image[y0:y1, x0:x1].reshape(-1, 3), axis=0)
        errors_as_is.append(float(np.abs(_chromaticity(measured) - expected).sum()))
        errors_swapped.append(float(np.abs(_chromaticity(measured[::-1]) - expected).sum()))
    if not errors_as_is:
        return ChannelOrderReport(
            None, float("nan"), float("nan"), 0,
            "cannot check the colour order: give a clearly red or blue reference inside the frame",
        )
    as_is, swapped = float(np.mean(errors_as_is)), float(np.mean(errors_swapped))
    used = len(errors_as_is)
    if swapped < decisive_ratio * as_is:
        return ChannelOrderReport(
            True, as_is, swapped, used,
            "the camera's red and blue look swapped (red reads as blue): turn on red/blue swapping for this camera",
        )
    if as_is < decisive_ratio * swapped:
        return ChannelOrderReport(False, as_is, swapped, used, "colour order is right (BGR)")
    return ChannelOrderReport(
        None, as_is, swapped, used,
        "cannot tell whether red and blue are swapped: check the light and the reference patches",
    )
