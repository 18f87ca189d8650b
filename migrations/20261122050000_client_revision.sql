-- A revision number per client, raised by every update whatever writes it: an instance that keeps a client in
-- memory commits a decision made with it only while the row still has that revision (see domain/client-cache.ts).
ALTER TABLE clients ADD COLUMN revision integer NOT NULL DEFAULT 1;

CREATE FUNCTION clients_next_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.revision := OLD.revision + 1;
  RETURN NEW;
END
$$;

CREATE TRIGGER clients_revision BEFORE UPDATE ON clients FOR EACH ROW EXECUTE FUNCTION clients_next_revision();
