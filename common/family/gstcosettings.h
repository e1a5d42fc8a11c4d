/* cudaoptics — LGPL-2.1-or-later
 *
 * GstCoSettings: an element's properties declared once, as a table
 * (GstCoSetting rows), for any base class of the family.  Every write
 * takes the object lock, marks a rebuild or renegotiates as the row says
 * (the renegotiation outside the lock, as videoflip does), and a snapshot
 * for the streaming thread is one call.  The base classes wrap it
 * (gst_co_base_filter_class_install_settings...).
 */
#ifndef __GST_CO_SETTINGS_H__
#define __GST_CO_SETTINGS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstCoSettingFlags:
 * @GST_CO_SETTING_FRAME: read from the snapshot of each frame: no rebuild
 * @GST_CO_SETTING_REBUILD: rebuild before the next frame
 * @GST_CO_SETTING_RESIZE: renegotiate (the output size follows it)
 * @GST_CO_SETTING_FLOAT: a double property held as a gfloat
 *
 * What a change of one setting does; the base applies it, the object lock
 * held for the write and released before any renegotiation.
 */
typedef enum
{
  GST_CO_SETTING_FRAME = 0,
  GST_CO_SETTING_REBUILD = 1 << 0,
  GST_CO_SETTING_RESIZE = 1 << 1,
  GST_CO_SETTING_FLOAT = 1 << 2,
} GstCoSettingFlags;

/**
 * GstCoSetting:
 * @pspec: the property (made in class_init; its id is its index + 1, so
 *   a table names it: [PROP_X - 1] = { ... })
 * @offset: of its value in the class's settings struct (G_STRUCT_OFFSET;
 *   negative for a field of a private struct, from the instance)
 * @flags: what a change does
 * @gen: offset of a guint the base increments at every set (a file: read
 *   again when set again, gstcofilesetting.h), or -1
 *
 * One row of an element's settings table: the property, where its value
 * lives and what changing it does, declared once.
 */
typedef struct
{
  GParamSpec *pspec;
  gssize offset;
  GstCoSettingFlags flags;
  gssize gen;
} GstCoSetting;

/* Property flags of the family: a live property is read by the next frame
 * (GST_PARAM_MUTABLE_PLAYING); an animatable one also follows control
 * sources, which the base class syncs before every frame. */
#define GST_CO_PARAM_LIVE (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)
#define GST_CO_PARAM_ANIM (GST_CO_PARAM_LIVE | GST_PARAM_CONTROLLABLE)

/* The rows of a table, the pspec made in place: a table's rows differ
 * only in their values, so a row names those and not g_param_spec's
 * call again.  Each is a GstCoSetting initialiser, tied to its id as
 * any row is:
 *   [PROP_GAIN - 1] = GST_CO_ROW_DOUBLE ("gain", "Gain", "How much", 0.0,
 *       8.0, 1.0, GST_CO_PARAM_ANIM, SET (gain), GST_CO_SETTING_REBUILD),
 * The arguments are g_param_spec_<type>'s (@pflags its flags), then the
 * row's @offset and @flags.  A row bumps no counter but a file's. */
#define GST_CO_ROW(pspec, offset, flags) { pspec, offset, flags, -1 }
#define GST_CO_ROW_DOUBLE(name, nick, blurb, lo, hi, def, pflags, offset,  \
    flags)                                                                  \
  GST_CO_ROW (g_param_spec_double (name, nick, blurb, lo, hi, def, pflags), \
      offset, flags)
#define GST_CO_ROW_INT(name, nick, blurb, lo, hi, def, pflags, offset,     \
    flags)                                                                  \
  GST_CO_ROW (g_param_spec_int (name, nick, blurb, lo, hi, def, pflags),    \
      offset, flags)
#define GST_CO_ROW_UINT(name, nick, blurb, lo, hi, def, pflags, offset,    \
    flags)                                                                  \
  GST_CO_ROW (g_param_spec_uint (name, nick, blurb, lo, hi, def, pflags),   \
      offset, flags)
#define GST_CO_ROW_BOOLEAN(name, nick, blurb, def, pflags, offset, flags)  \
  GST_CO_ROW (g_param_spec_boolean (name, nick, blurb, def, pflags),        \
      offset, flags)
#define GST_CO_ROW_STRING(name, nick, blurb, def, pflags, offset, flags)   \
  GST_CO_ROW (g_param_spec_string (name, nick, blurb, def, pflags),         \
      offset, flags)
#define GST_CO_ROW_ENUM(name, nick, blurb, gtype, def, pflags, offset,     \
    flags)                                                                  \
  GST_CO_ROW (g_param_spec_enum (name, nick, blurb, gtype, def, pflags),    \
      offset, flags)
#define GST_CO_ROW_FLAGS(name, nick, blurb, gtype, def, pflags, offset,    \
    flags)                                                                  \
  GST_CO_ROW (g_param_spec_flags (name, nick, blurb, gtype, def, pflags),   \
      offset, flags)
/* A file's path (or a setting of how it is read): live, none by default,
 * and @gen_offset's counter bumped at every set, so that setting it again
 * reads the file again (gstcofilesetting.h). */
#define GST_CO_ROW_FILE(name, nick, blurb, offset, flags, gen_offset)      \
  { g_param_spec_string (name, nick, blurb, NULL, GST_CO_PARAM_LIVE),       \
      offset, flags, gen_offset }

/* The GType of an enum property, registered once; its values are the
 * arguments after @name (the terminator is added):
 *   static GST_CO_ENUM_TYPE (gst_co_x_get_type, "GstCoX",
 *       {X_A, "First", "a"}, {X_B, "Second", "b"})
 * Put static before it for an element's own enum. */
#define GST_CO_ENUM_TYPE(get_type, name, ...)                               \
  GType get_type (void)                                                     \
  {                                                                         \
    static gsize type = 0;                                                  \
    static const GEnumValue values[] = { __VA_ARGS__, {0, NULL, NULL} };    \
    if (g_once_init_enter (&type))                                          \
      g_once_init_leave (&type, g_enum_register_static (name, values));     \
    return (GType) type;                                                    \
  }

/* The same for a flags property ({X_A, "First", "a"}, ...): a launch line
 * sets it as "a+b" */
#define GST_CO_FLAGS_TYPE(get_type, name, ...)                              \
  GType get_type (void)                                                     \
  {                                                                         \
    static gsize type = 0;                                                  \
    static const GFlagsValue values[] = { __VA_ARGS__, {0, NULL, NULL} };   \
    if (g_once_init_enter (&type))                                          \
      g_once_init_leave (&type, g_flags_register_static (name, values));    \
    return (GType) type;                                                    \
  }

/* What a base class does when a row's flags ask for it, and the element's
 * own hook; @changed and @mark_dirty run with the object lock held,
 * @renegotiate and @parent_dirty outside it.  @parent_dirty is a pad's
 * rebuild: its parent element must rebuild, under the parent's lock,
 * which is never taken with the pad's.  Any may be NULL. */
typedef struct
{
  void (*changed) (GObject * object, guint prop_id);
  void (*mark_dirty) (GObject * object);
  void (*renegotiate) (GObject * object);
  void (*parent_dirty) (GObject * object);
} GstCoSettingsHooks;

/* Installs the rows' pspecs (ids 1..n) on @klass, marks their enum and
 * flags types as plugin API, points its set/get_property at the table and
 * keeps the table for @klass's type.  Each class that declares properties (a base, an intermediate base, the element, a pad
 * class) installs its own table with its own ids 1..n: a property is found
 * in the table of its pspec's owner, and a new instance takes the defaults
 * of all of them.  @instance_offset: of the settings struct in the
 * instance; @size: its size, or 0 when the rows are never snapshotted (a
 * base's own properties, their offsets from the instance: snapshots copy
 * the nearest table with a size).
 * A read-only row (its pspec not writable) shows the field its owner
 * writes, under the object lock; it takes no default.  @settings and
 * @hooks are copied. */
void     gst_co_settings_install (GObjectClass * klass, gsize instance_offset,
    gsize size, const GstCoSetting * settings, guint n,
    const GstCoSettingsHooks * hooks);
/* For an element's own set/get_property: TRUE when @prop_id is the
 * element's table's (the nearest with a size), and done. */
gboolean gst_co_settings_set (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_co_settings_get (GObject * object, guint prop_id,
    GValue * value);
/* The pspecs' defaults into a new instance (constructed) */
void     gst_co_settings_init_instance (GObject * object);
/* The live settings' strings, at finalize */
void     gst_co_settings_finalize (GObject * object);
/* A copy of the settings struct taken under the object lock, its strings
 * duplicated; gst_co_settings_snapshot_clear frees them. */
void     gst_co_settings_snapshot (GObject * object, gpointer dst);
void     gst_co_settings_snapshot_clear (GObject * object, gpointer snap);

/* The rebuild contract of every base class: what an element built from
 * its settings and caps is rebuilt before the next frame after a setting
 * marked it dirty (under the object lock) or new caps invalidated it
 * (streaming thread).  ready is cleared before the rebuild, so nothing half
 * built is ever used. */
typedef struct
{
  gboolean dirty;               /* under the object lock */
  gboolean ready, caps_changed; /* streaming thread */
} GstCoRebuild;

/* New caps, a new context, a release: rebuild everything */
void     gst_co_rebuild_invalidate (GstCoRebuild * r);
/* TRUE when the element must rebuild now (with caps_changed saying
 * whether the caps did); then gst_co_rebuild_done once it has. */
gboolean gst_co_rebuild_needed (GstObject * object, GstCoRebuild * r);
void     gst_co_rebuild_done    (GstCoRebuild * r);

G_END_DECLS
#endif
