-- A service provider's metadata read from its metadata_url (issue 39): when it was last read (NULL: never, or
-- given inline), for the refresh of src/jobs/saml-metadata-job.ts.
-- The block cipher of a service provider's encrypted assertions when its metadata names none we support (issue 39):
-- AES-GCM by default (XML Encryption 1.1), AES-CBC for older SPs that cannot decrypt GCM.
ALTER TABLE saml_service_providers
  ADD COLUMN encryption_algorithm text NOT NULL DEFAULT 'aes256-gcm'
    CHECK (encryption_algorithm IN ('aes256-gcm', 'aes128-gcm', 'aes256-cbc', 'aes128-cbc')),
  ADD COLUMN metadata_refreshed_at timestamptz;
