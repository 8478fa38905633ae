"""The store's schema revisions, one module each, applied in order by `space_app.migrations.upgrade`."""
