/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoAggregatorPad: one input of a GstCoBaseAggregator, one camera of a
 * rig, as the base sees it: its caps (parsed by the base) and its staging
 * frame.  It has no properties: what an element's inputs name besides
 * (cudacltcorrelate: each camera's calibration and lens) belongs to the
 * element's own subclass, so that the base reads no element's files.
 */
#include "gstcocompat.h"
#include "gstcobaseaggregator.h"

G_DEFINE_TYPE (GstCoAggregatorPad, gst_co_aggregator_pad,
    GST_TYPE_AGGREGATOR_PAD);

static void
gst_co_aggregator_pad_class_init (GstCoAggregatorPadClass * klass)
{
}

static void
gst_co_aggregator_pad_init (GstCoAggregatorPad * pad)
{
  gst_co_video_info_init (&pad->in);
}
