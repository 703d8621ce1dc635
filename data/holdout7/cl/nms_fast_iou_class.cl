/* "Fast NMS" for object detection boxes, one box per work-item. Boxes arrive sorted by score,
 * highest first, as (x0, y0, x1, y1) in pixels with a class label each. Box i is dropped when its
 * score is under the score threshold, or when an earlier (higher-scored) box of the same class
 * overlaps it with an IoU above iou_thresh; unlike greedy NMS the earlier box counts even if it was
 * itself suppressed, so every box is decided independently. keep[i] is 1 or 0; by[i] is the index
 * of the first box that suppressed it, -1 when kept, -2 when under the score threshold. */
__kernel void nms_fast_iou_class(const int nbox, const float iou_thresh, const float score_thresh,
                                 __global const float4 *boxes,
                                 __global const float *scores,
                                 __global const int *cls,
                                 __global int *keep,
                                 __global int *by)
{
    const int i = get_global_id(0);
    if (i >= nbox)
        return;

    if (scores[i] < score_thresh) {
        keep[i] = 0;
        by[i] = -2;
        return;
    }

    const float4 a = boxes[i];
    const int c = cls[i];
    const float area_a = (a.z - a.x) * (a.w - a.y);
    int sup = -1;
    for (int j = 0; j < i; j++) {
        if (cls[j] != c)
            continue;
        const float4 o = boxes[j];
        const float iw = fmin(a.z, o.z) - fmax(a.x, o.x);
        const float ih = fmin(a.w, o.w) - fmax(a.y, o.y);
        if (iw <= 0.0f || ih <= 0.0f)
            continue;
        const float inter = iw * ih;
        const float uni = area_a + (o.z - o.x) * (o.w - o.y) - inter;
        if (inter / uni > iou_thresh) {
            sup = j;
            break;
        }
    }
    keep[i] = sup < 0 ? 1 : 0;
    by[i] = sup;
}
