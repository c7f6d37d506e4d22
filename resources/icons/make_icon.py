# Generates resources/icons/kvscope.svg and kvscope-256.png from one description:
# a 3×3 block pool — fp16 frames whole, q8 frames in halves, q4 frames in quarters.
import struct, zlib
S = 256
BG = (0x26, 0x32, 0x38); FREE = (0x4a, 0x57, 0x5e)
FP16 = (0x00, 0x72, 0xB2); Q8 = (0x00, 0x9E, 0x73); Q4 = (0xD5, 0x5E, 0x00)
cells = [["fp16", "fp16", "q8"], ["q4", "fp16", "free"], ["q8", "q4", "fp16"]]
occupied = {(0, 2): [1, 1], (1, 0): [1, 1, 1, 0], (2, 0): [1, 0], (2, 1): [1, 1, 1, 1]}
col = {"fp16": FP16, "q8": Q8, "q4": Q4, "free": FREE}
rects = []  # (x, y, w, h, color)
m, gap = 28, 12
cell = (S - 2 * m - 2 * gap) // 3
for r in range(3):
    for c in range(3):
        x0, y0, kind = m + c * (cell + gap), m + r * (cell + gap), cells[r][c]
        occ = occupied.get((r, c))
        if kind in ("fp16", "free"):
            rects.append((x0, y0, cell, cell, col[kind]))
        elif kind == "q8":
            h = (cell - 6) // 2
            for i in range(2):
                rects.append((x0 + i * (h + 6), y0, h, cell, Q8 if occ[i] else FREE))
        else:
            h = (cell - 6) // 2
            for i in range(4):
                rects.append((x0 + (i % 2) * (h + 6), y0 + (i // 2) * (h + 6), h, h, Q4 if occ[i] else FREE))
def hexc(c): return "#%02x%02x%02x" % c
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">' % (S, S, S, S),
       '<rect width="%d" height="%d" rx="40" fill="%s"/>' % (S, S, hexc(BG))]
svg += ['<rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="%s"/>' % (x, y, w, h, hexc(c)) for x, y, w, h, c in rects]
svg.append("</svg>\n")
open("kvscope.svg", "w").write("\n".join(svg))
px = [[None] * S for _ in range(S)]
R = 40
for y in range(S):
    for x in range(S):
        cx = min(max(x, R), S - 1 - R); cy = min(max(y, R), S - 1 - R)
        inside = (x - cx) ** 2 + (y - cy) ** 2 <= R * R
        px[y][x] = BG + (255,) if inside else (0, 0, 0, 0)
for x0, y0, w, h, c in rects:
    for y in range(y0, y0 + h):
        for x in range(x0, x0 + w):
            px[y][x] = c + (255,)
raw = b"".join(b"\0" + bytes(v for p in row for v in p) for row in px)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", S, S, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open("kvscope-256.png", "wb").write(png)
